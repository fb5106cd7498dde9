#include "run/sanitize.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "check/apply_expectation.h"
#include "model/expectation.h"
#include "util/file_util.h"
#include "process/interrupt.h"
#include "run/repro.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool executable(const fs::path& p) { return fs::is_regular_file(p) && ::access(p.c_str(), X_OK) == 0; }

}  // namespace

std::optional<std::string> find_compute_sanitizer() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && executable(fs::path(dir) / "compute-sanitizer")) return fs::absolute(fs::path(dir) / "compute-sanitizer").string();
  }
  if (executable("/usr/local/cuda/bin/compute-sanitizer")) return std::string("/usr/local/cuda/bin/compute-sanitizer");
  return std::nullopt;
}

SanitizerReport parse_sanitizer_log(const std::string& log, size_t max_lines) {
  // Reports are blocks of "========= " lines separated by a bare "=========" line; the first
  // block is the tool's banner, the last line its ERROR SUMMARY.
  SanitizerReport rep;
  std::stringstream ss(log);
  std::string line, block;
  size_t lines = 0;
  bool in_error = false, done = false;
  while (std::getline(ss, line)) {
    if (line.rfind("=========", 0) != 0) continue;
    std::string body = line.substr(9);
    if (!body.empty() && body[0] == ' ') body.erase(0, 1);
    // memcheck, initcheck and synccheck end with "ERROR SUMMARY: N errors"; racecheck with
    // "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    if (body.rfind("ERROR SUMMARY", 0) == 0 || (body.rfind("RACECHECK SUMMARY", 0) == 0 && rep.summary.empty())) {
      rep.summary = body;
      continue;
    }
    if (done) continue;
    const bool blank = body.find_first_not_of(' ') == std::string::npos;
    if (!in_error) {
      if (blank || body.rfind("COMPUTE-SANITIZER", 0) == 0) continue;
      in_error = true;
    } else if (blank) {
      done = true;
      continue;
    }
    if (lines < max_lines) block += body + "\n";
    else if (lines == max_lines) block += "...\n";
    ++lines;
  }
  rep.first_error = block;
  return rep;
}

SanitizePlan parse_sanitize(const std::string& text) {
  static const std::vector<std::string> kTools = {"memcheck", "racecheck", "synccheck", "initcheck"};
  if (text == "failures") return SanitizePlan{{"memcheck", "racecheck"}, false};
  SanitizePlan plan{{}, true};
  std::stringstream ss(text);
  std::string tool;
  while (std::getline(ss, tool, ',')) {
    if (std::find(kTools.begin(), kTools.end(), tool) == kTools.end())
      throw std::invalid_argument("'" + tool + "' is not a compute-sanitizer tool (memcheck, racecheck, synccheck, initcheck)");
    if (std::find(plan.tools.begin(), plan.tools.end(), tool) == plan.tools.end()) plan.tools.push_back(tool);
  }
  if (plan.tools.empty()) throw std::invalid_argument("no tool named; write --sanitize=racecheck (or memcheck,racecheck)");
  return plan;
}

int sanitizer_error_count(const std::string& summary) {
  int n = 0;
  if (std::sscanf(summary.c_str(), "ERROR SUMMARY: %d error", &n) == 1) return n;
  // Every hazard racecheck shows counts, its warnings too: each is a pair of unordered accesses.
  if (std::sscanf(summary.c_str(), "RACECHECK SUMMARY: %d hazard", &n) == 1) return n;
  return 0;
}

CaseSanitizer sanitize_case(const RunOptions& opt, const std::string& sanitizer_path, const std::vector<std::string>& tool_names,
                            const KernelSpec& k, const CaseSpec& c, const std::string& log_dir) {
  CaseSanitizer out{sanitizer_path, {}};
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  for (const std::string& tool : tool_names) {
    const std::string log_path = log_dir + "/" + tool + ".log";
    fs::remove(log_path, ec);
    RunOptions o = opt;
    o.wrapper = {sanitizer_path, "--tool", tool, "--log-file", log_path, "--target-processes", "application-only"};
    o.timeout_s = opt.timeout_s * 20;  // the tools slow kernels down by one to two orders of magnitude
    Runner runner(o);
    const CaseResult r = runner.run(k, c);
    std::ifstream in(log_path);
    std::stringstream ss;
    ss << in.rdbuf();
    const SanitizerReport rep = parse_sanitizer_log(ss.str());
    out.tools.push_back({tool, r.status, sanitizer_error_count(rep.summary), rep.summary, rep.first_error, log_path,
                         in ? "" : "the tool wrote no log: " + r.message.substr(0, 500)});
    if (r.status == Status::NOT_RUN) break;  // interrupted
  }
  return out;
}

namespace {

// The first tool that reported an error, as a verdict's message: the tool, its summary and the
// first line of its first report (the kind of hazard, the kernel and, with line info, the line).
std::optional<std::string> finding(const std::optional<CaseSanitizer>& sanitizer) {
  if (!sanitizer) return std::nullopt;
  for (const SanitizerTool& t : sanitizer->tools) {
    if (t.errors == 0) continue;
    const std::string where = t.first_error.substr(0, t.first_error.find('\n'));
    return fmt::format("compute-sanitizer {}: {}{}", t.tool, t.summary, where.empty() ? "" : ": " + where);
  }
  return std::nullopt;
}

// A case that passed but whose tool reported an error fails, and its expectation applies again
// (a kernel known to race is XFAIL under the tool).
void fail_on_finding(CaseResult& r, const KernelSpec& k, const CaseSpec& c, const std::string& device_arch) {
  const Status underneath = r.actual_status.value_or(r.status);
  const std::optional<std::string> what = finding(r.sanitizer);
  if (underneath != Status::PASS || !what) return;
  r.status = Status::FAIL;
  r.message = *what;
  r.actual_status.reset();
  r.expected.reset();
  r = apply_expectation(std::move(r), case_expectation(k, c, device_arch));
}

}  // namespace

SanitizerRun sanitize_results(const SanitizePlan& plan, const RunOptions& opt, const std::string& backend, const std::string& device_arch,
                      const std::string& out_dir, std::vector<CaseResult>& results, const std::vector<CaseOrigin>& origin,
                      const std::function<void(const CaseResult&)>& journal) {
  const auto tool = find_compute_sanitizer();
  std::string skipped;
  const BackendRow* row = find_backend(backend);
  if (!row || !row->sanitizer) skipped = "compute-sanitizer needs the CUDA backend; this run used " + backend;
  else if (!tool) skipped = "compute-sanitizer was found neither on PATH nor in /usr/local/cuda/bin";
  if (!skipped.empty()) {
    fmt::print(stderr, "hkcheck: --sanitize: {}\n", skipped);
    return SanitizerRun{false, skipped, "", {}, false};
  }
  for (size_t i = 0; i < results.size() && !interrupt_signal(); ++i) {
    CaseResult& r = results[i];
    const Status underneath = r.actual_status.value_or(r.status);  // XFAIL cases are looked at too
    const bool failed = underneath == Status::FAIL || underneath == Status::CRASH || underneath == Status::FLAKY;
    if (!failed && !(plan.every_case && underneath == Status::PASS)) continue;
    fmt::print(stderr, "hkcheck: --sanitize: {} / {}\n", r.kernel, r.case_name);
    const std::string log_dir = fs::absolute(fs::path(out_dir) / repro_subdir(r.kernel, r.case_name) / "sanitizer").string();
    std::string err;
    std::vector<std::string> replaced;  // a link in the results folder is never followed
    if (!make_folder_inside(out_dir, repro_subdir(r.kernel, r.case_name) + "/sanitizer", &err, &replaced)) fmt::print(stderr, "hkcheck: {}\n", err);
    for (const std::string& line : replaced) fmt::print(stderr, "hkcheck: {}\n", line);
    r.sanitizer = sanitize_case(opt, *tool, plan.tools, *origin[i].first, *origin[i].second, log_dir);
    fail_on_finding(r, *origin[i].first, *origin[i].second, device_arch);
    journal(r);
  }
  return SanitizerRun{true, "", *tool, plan.tools, plan.every_case};
}

}  // namespace hk
