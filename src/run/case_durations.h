// The expected time of each case from the latest run that ran it, kept in the cache folder
// (<cache>/case-durations.json) so that the next run starts the longest cases first
// (case_schedule.h). A missing or unreadable file is no durations, never an error.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "contracts/result.h"

namespace hk {

struct CaseDurations {
  std::map<std::string, double> wall_ms;  // case id (case_filter.h) -> ms
};
void to_json(nlohmann::json& j, const CaseDurations& d);
void from_json(const nlohmann::json& j, CaseDurations& d);  // throws nlohmann::json::exception

std::string case_durations_path(const std::string& cache_dir);

// What a case that took `t` is expected to take next time, which is what the file keeps: its wall
// time less what the caches will save (its compile, and its reference when the reference cache is
// on and computed it) and less its worker's start, which is not the case's. After a cold run the
// next order then follows the warm costs (a 2 GB comparison), not the compiles and references
// that will be read back.
double expected_next_ms(const Timings& t, bool reference_cache);

// The durations kept in cache_dir; empty when there are none or the file is unreadable.
CaseDurations load_case_durations(const std::string& cache_dir);

// Adds (or replaces) these cases' durations to those kept, written atomically; false with *err
// when the file cannot be written.
bool save_case_durations(const std::string& cache_dir, const CaseDurations& latest, std::string* err);

}  // namespace hk
