// --sanitize: after the run, cases run again, each alone in a worker started under
// compute-sanitizer, CUDA only (docs/results.md, "--sanitize"). A bare --sanitize reruns the
// cases that did not pass under memcheck and racecheck and attaches the first report of each;
// --sanitize=TOOL[,TOOL] runs every case under those tools, and a case whose run passed but
// whose tool reported an error becomes FAIL, with the tool's report as its message.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "contracts/run_info.h"
#include "run/runner.h"

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

// What --sanitize asks for: the tools, and whether every case runs under them or only the
// cases that did not pass.
struct SanitizePlan {
  std::vector<std::string> tools;
  bool every_case = false;
};
// "failures" (a bare --sanitize) or a list of tools: memcheck, racecheck, synccheck, initcheck.
// Throws std::invalid_argument naming an unknown tool.
SanitizePlan parse_sanitize(const std::string& text);

// The "N" of the tool's "ERROR SUMMARY: N errors" line, or of racecheck's "RACECHECK SUMMARY:
// N hazards displayed (...)"; 0 when there is none.
int sanitizer_error_count(const std::string& summary);

// Runs case c of k again under sanitizer_path with each tool in turn; opt is the run's options
// (the backend as probed). log_dir receives the tools' full logs.
CaseSanitizer sanitize_case(const RunOptions& opt, const std::string& sanitizer_path, const std::vector<std::string>& tools,
                             const KernelSpec& k, const CaseSpec& c, const std::string& log_dir);

// The sanitizer pass over a finished run: results[i] is the result of case origin[i]; a result
// the pass changes is handed to journal. Returns run.sanitizer (whether it ran, and with what,
// or why not). device_arch picks the cases' expectations again for a new verdict.
using CaseOrigin = std::pair<const KernelSpec*, const CaseSpec*>;
SanitizerRun sanitize_results(const SanitizePlan& plan, const RunOptions& opt, const std::string& backend,
                                const std::string& device_arch, const std::string& out_dir, std::vector<CaseResult>& results,
                                const std::vector<CaseOrigin>& origin, const std::function<void(const CaseResult&)>& journal);

}  // namespace hk
