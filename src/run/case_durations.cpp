#include "run/case_durations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "util/file_util.h"

namespace hk {
namespace {
constexpr const char* kDurationsSchema = "hkcheck-case-durations";
constexpr int kDurationsVersion = 1;
}  // namespace

void to_json(nlohmann::json& j, const CaseDurations& d) {
  j = {{"schema", kDurationsSchema}, {"version", kDurationsVersion}, {"wall_ms", d.wall_ms}};
}

void from_json(const nlohmann::json& j, CaseDurations& d) {
  if (j.at("schema").get<std::string>() != kDurationsSchema || j.at("version").get<int>() != kDurationsVersion)
    throw nlohmann::json::other_error::create(501, "not case durations of this version", &j);
  d.wall_ms = j.at("wall_ms").get<std::map<std::string, double>>();
}

std::string case_durations_path(const std::string& cache_dir) { return cache_dir + "/case-durations.json"; }

double expected_next_ms(const Timings& t, bool reference_cache) {
  const double saved = t.compile_ms + t.worker_start_ms + (reference_cache && !t.reference_cached ? t.reference_ms : 0);
  return std::max(0.0, t.wall_ms - saved);
}

CaseDurations load_case_durations(const std::string& cache_dir) {
  if (cache_dir.empty()) return {};
  std::ifstream in(case_durations_path(cache_dir));
  if (!in) return {};
  try {
    return nlohmann::json::parse(in).get<CaseDurations>();
  } catch (const nlohmann::json::exception&) {
    return {};  // a torn or older file only costs the order of one run
  }
}

bool save_case_durations(const std::string& cache_dir, const CaseDurations& latest, std::string* err) {
  CaseDurations all = load_case_durations(cache_dir);
  for (const auto& [id, ms] : latest.wall_ms) all.wall_ms[id] = ms;
  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  return write_file_atomic(case_durations_path(cache_dir), nlohmann::json(all).dump() + "\n", err);
}

}  // namespace hk
