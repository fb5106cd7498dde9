#include "cli/resume.h"

#include <filesystem>
#include <fmt/format.h>

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

template <class T>
bool take(const Settings& s, const std::string& option, const json& header, const std::string& field, T& value, const std::string& journal) {
  const T recorded = header.at(field).get<T>();
  if (s.was_given(option) && value != recorded) {
    fmt::print(stderr, "hkcheck: {}: the run being resumed used {} {}, not {}; resume with the same settings or start a new run\n",
               journal, option, json(recorded).dump(), json(value).dump());
    return false;
  }
  value = recorded;
  return true;
}

// Every recorded setting, taken or refused; json errors go to the caller.
bool take_all(Settings& s, const json& h, const std::string& journal) {
  std::string recorded_backend = h.value("backend", "auto");
  if (recorded_backend == "none") recorded_backend = s.backend;  // no device then: any now
  json header_backend = h;
  header_backend["backend"] = recorded_backend;
  json manifests_header = h;  // the same folder however it is spelled
  std::error_code ec;
  if (s.was_given("--manifests") && h.contains("manifests") &&
      fs::weakly_canonical(s.manifest_dir, ec) == fs::weakly_canonical(h["manifests"].get<std::string>(), ec))
    manifests_header["manifests"] = s.manifest_dir;
  if (!take(s, "--seed", h, "seed", s.seed, journal) || (h.contains("seeds") && !take(s, "--seeds", h, "seeds", s.seeds, journal)) ||
      !take(s, "--manifests", manifests_header, "manifests", s.manifest_dir, journal) ||
      !take(s, "--backend", header_backend, "backend", s.backend, journal) || !take(s, "--device", h, "device_index", s.device, journal) ||
      (h.contains("host_profile") && !take(s, "--host-profile", h, "host_profile", s.host.profile, journal)) ||
      (h.contains("repeat") && !take(s, "--repeat", h, "repeat", s.repeat, journal)) ||
      (h.contains("tier") && !take(s, "--tier", h, "tier", s.tier, journal)) ||
      (h.contains("source") && !take(s, "--source", h, "source", s.source_vendor, journal)))
    return false;
  const auto kernels = h.at("kernels").get<std::vector<std::string>>();
  if ((!s.select.patterns.empty() || s.select.all) && s.select.patterns != kernels) {
    fmt::print(stderr, "hkcheck: {}: the run being resumed selected {}, not {}; resume with the same selection or start a new run\n",
               journal, h.at("kernels").dump(), json(s.select.patterns).dump());
    return false;
  }
  s.select.patterns = kernels;
  if (!s.was_given("--timeout")) s.timeout = h.at("timeout").get<double>();
  return true;
}

}  // namespace

bool resume_settings(Settings& s, JournalContents* journal, std::string* journal_path) {
  *journal_path = s.resume_dir + "/" + kJournalName;
  try {
    *journal = read_journal(*journal_path);
  } catch (const JournalError& e) {
    fmt::print(stderr, "hkcheck: --resume: {}\n", e.what());
    return false;
  }
  if (journal->dropped_partial_line) fmt::print(stderr, "hkcheck: {}: its last line was cut short and is ignored\n", *journal_path);
  for (int line : journal->damaged_lines)
    fmt::print(stderr, "hkcheck: {}:{}: not a whole JSON line (a torn write); ignored, so its case runs again\n", *journal_path, line);
  if (s.was_given("--out") && fs::weakly_canonical(s.report.out_dir) != fs::weakly_canonical(s.resume_dir)) {
    fmt::print(stderr, "hkcheck: --resume writes into the folder it resumes ({}); leave out --out\n", s.resume_dir);
    return false;
  }
  s.report.out_dir = s.resume_dir;
  try {
    return take_all(s, journal->header, *journal_path);
  } catch (const json::exception& e) {
    fmt::print(stderr, "hkcheck: {}:1: bad run header: {}\n", *journal_path, e.what());
    return false;
  }
}

}  // namespace hk
