// The forms a run's results take: the console, test_results.json, test_results.md and JUnit XML.
// Each mode builds the reporters its settings ask for and gives each the same two events.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "report/console_reporter.h"
#include "report/reporter.h"
#include "report/report.h"
#include "report/report_settings.h"

namespace hk {

class Reporters {
 public:
  // The console, then the files of `report` in out_dir: JSON and markdown always, JUnit when asked.
  Reporters(const ReportSettings& report, const std::string& out_dir, ConsoleStyle console);
  void case_finished(const CaseResult& r, size_t done, size_t total);
  // Runs every reporter (the files first, then the console's summary); false with *err.
  bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string* err);
  // test_results.json and .md go to dir, not to the out folder given; JUnit stays where asked.
  void files_go_to(const std::string& dir);

 private:
  std::vector<std::unique_ptr<Reporter>> all_;
};

}  // namespace hk
