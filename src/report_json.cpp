#include <filesystem>
#include <fmt/format.h>

#include "file_util.h"
#include "fnv1a.h"
#include "report.h"
#include "report_text.h"

namespace hk {

using nlohmann::json;

Counts count_results(const std::vector<CaseResult>& results) {
  Counts c;
  for (const CaseResult& r : results) c.add(r.status);
  return c;
}

std::string compile_log_id(const std::string& log) { return fmt::format("log-{:08x}", static_cast<uint32_t>(fnv1a(log))); }

json results_json(const RunInfo& run, const std::vector<CaseResult>& results) {
  const Counts c = count_results(results);
  json summary = {{"total", c.total}};
  for (const StatusInfo& i : status_table()) summary[i.name] = c[i.status];
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
            {"source_vendor", run.source_vendor},
            {"device", run.device},
            {"command", run.command},
            {"manifest_errors", run.manifest_errors},
            {"interrupted", run.interrupted.empty() ? json(nullptr) : json(run.interrupted)},
            {"resumed_from", run.resumed_from.empty() ? json(nullptr) : json(run.resumed_from)},
            {"sanitizer", run.sanitizer}}},
          {"summary", summary},
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
  const std::string text = json_text(results_json(run, results), 2) + "\n";
  return write_file_atomic(dir + "/test_results.json", text, err) &&
         write_file_atomic(dir + "/test_results.md", results_markdown(run, results), err);
}

}  // namespace hk
