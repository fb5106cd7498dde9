// The wall time of each case in the latest run that ran it, kept in the cache folder
// (<cache>/case-durations.json) so that the next run starts the longest cases first
// (case_schedule.h). A missing or unreadable file is no durations, never an error.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace hk {

struct CaseDurations {
  std::map<std::string, double> wall_ms;  // case id (case_filter.h) -> ms
};
void to_json(nlohmann::json& j, const CaseDurations& d);
void from_json(const nlohmann::json& j, CaseDurations& d);  // throws nlohmann::json::exception

std::string case_durations_path(const std::string& cache_dir);

// The durations kept in cache_dir; empty when there are none or the file is unreadable.
CaseDurations load_case_durations(const std::string& cache_dir);

// Adds (or replaces) these cases' durations to those kept, written atomically; false with *err
// when the file cannot be written.
bool save_case_durations(const std::string& cache_dir, const CaseDurations& latest, std::string* err);

}  // namespace hk
