#include <filesystem>
#include <fmt/format.h>

#include "util/file_util.h"
#include "report/report.h"
#include "util/report_text.h"

namespace hk {

using nlohmann::json;

Counts count_results(const std::vector<CaseResult>& results) {
  Counts c;
  for (const CaseResult& r : results) c.add(r.status);
  return c;
}

json results_json(const RunInfo& run, const std::vector<CaseResult>& results) { return ResultsDocument{kResultsSchemaVersion, run, results}; }

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
