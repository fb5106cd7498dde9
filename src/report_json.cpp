#include <filesystem>
#include <fmt/format.h>

#include "file_util.h"
#include "fnv1a.h"
#include "report.h"

namespace hk {

using nlohmann::json;

Counts count_results(const std::vector<CaseResult>& results) {
  Counts c;
  for (const CaseResult& r : results) {
    ++c.total;
    switch (r.status) {
      case Status::PASS: ++c.pass; break;
      case Status::FAIL: ++c.fail; break;
      case Status::CRASH: ++c.crash; break;
      case Status::TIMEOUT: ++c.timeout; break;
      case Status::SKIP: ++c.skip; break;
      case Status::COMPILE_ERROR: ++c.compile_error; break;
      case Status::ERROR: ++c.error; break;
      case Status::FLAKY: ++c.flaky; break;
      case Status::XFAIL: ++c.xfail; break;
      case Status::XPASS: ++c.xpass; break;
      case Status::NOT_RUN: ++c.not_run; break;
      case Status::LEAK: ++c.leak; break;
    }
  }
  return c;
}

std::string counts_line(const Counts& c) {
  std::string s = fmt::format("{} cases: {} PASS, {} FAIL, {} CRASH, {} TIMEOUT, {} SKIP, {} COMPILE_ERROR, {} ERROR", c.total, c.pass,
                              c.fail, c.crash, c.timeout, c.skip, c.compile_error, c.error);
  // Statuses most runs never see are named only when they occur.
  if (c.flaky) s += fmt::format(", {} FLAKY", c.flaky);
  if (c.leak) s += fmt::format(", {} LEAK", c.leak);
  if (c.xfail) s += fmt::format(", {} XFAIL", c.xfail);
  if (c.xpass) s += fmt::format(", {} XPASS", c.xpass);
  if (c.not_run) s += fmt::format(", {} NOT_RUN", c.not_run);
  return s;
}

std::string compile_log_id(const std::string& log) { return fmt::format("log-{:08x}", static_cast<uint32_t>(fnv1a(log))); }

json results_json(const RunInfo& run, const std::vector<CaseResult>& results) {
  const Counts c = count_results(results);
  // A file that does not compile fails every case of every entry with the same log: the log is
  // kept once under "compile_logs", and each case names it.
  json cases = results, logs = json::object();
  for (json& cj : cases) {
    if (!cj.contains("compile_log")) continue;
    const std::string id = compile_log_id(cj["compile_log"].get<std::string>());
    logs[id] = cj["compile_log"];
    cj["compile_log"] = id;
  }
  return {{"schema", "hkcheck-results"},
          {"schema_version", kResultsSchemaVersion},
          {"run",
           {{"hkcheck_version", run.hkcheck_version},
            {"git_commit", run.git_commit},
            {"host", run.host},
            {"started_at", run.started_at},
            {"wall_s", run.wall_s},
            {"seed", run.seed},
            {"seeds", run.seeds},
            {"backend", run.backend},
            {"tier", run.tier},
            {"device", run.device},
            {"command", run.command},
            {"manifest_errors", run.manifest_errors},
            {"interrupted", run.interrupted.empty() ? json(nullptr) : json(run.interrupted)},
            {"resumed_from", run.resumed_from.empty() ? json(nullptr) : json(run.resumed_from)},
            {"sanitizer", run.sanitizer}}},
          {"summary",
           {{"total", c.total},
            {"PASS", c.pass},
            {"FAIL", c.fail},
            {"CRASH", c.crash},
            {"TIMEOUT", c.timeout},
            {"SKIP", c.skip},
            {"COMPILE_ERROR", c.compile_error},
            {"ERROR", c.error},
            {"FLAKY", c.flaky},
            {"XFAIL", c.xfail},
            {"XPASS", c.xpass},
            {"NOT_RUN", c.not_run},
            {"LEAK", c.leak}}},
          {"compile_logs", logs},
          {"cases", cases}};
}

bool write_reports(const std::string& dir, const RunInfo& run, const std::vector<CaseResult>& results, std::string* err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *err = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  const std::string text = results_json(run, results).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  return write_file_atomic(dir + "/test_results.json", text, err) &&
         write_file_atomic(dir + "/test_results.md", results_markdown(run, results), err);
}

}  // namespace hk
