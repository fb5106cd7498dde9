// --sanitize: after the run, each FAIL or CRASH case runs again in a worker started under
// compute-sanitizer (memcheck, then racecheck), CUDA only; the first report of each tool is
// attached to the case (CaseResult::sanitizer, docs/results.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runner.h"

namespace hk {

// compute-sanitizer on PATH, else in /usr/local/cuda/bin; nothing when neither has it.
std::optional<std::string> find_compute_sanitizer();

// The first error report in a compute-sanitizer log, trimmed to max_lines (empty: none found),
// and the "ERROR SUMMARY" line when there is one.
struct SanitizerReport {
  std::string first_error;
  std::string summary;
};
SanitizerReport parse_sanitizer_log(const std::string& log, size_t max_lines = 25);

// Runs case c of k again under sanitizer_path with each tool in turn; opt is the run's options
// (the backend as probed). log_dir receives the tools' full logs. Returns the JSON for
// CaseResult::sanitizer: {"tool_path", "tools": [{"tool","status","errors","first_error","log"}]}.
nlohmann::json sanitize_case(const RunOptions& opt, const std::string& sanitizer_path, const KernelSpec& k,
                             const CaseSpec& c, const std::string& log_dir);

}  // namespace hk
