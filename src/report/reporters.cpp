#include "report/reporters.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#include "util/file_util.h"
#include "report/report_junit.h"

namespace hk {
namespace {

bool make_folder(const std::string& dir, std::string* err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) *err = "cannot create " + dir + ": " + ec.message();
  return !ec;
}

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::string dir) : dir_(std::move(dir)) {}
  void files_go_to(const std::string& dir) override { dir_ = dir; }
  bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string* err) override {
    const std::string text = json_text(results_json(run, results), 2) + "\n";
    return make_folder(dir_, err) && write_file_atomic(dir_ + "/test_results.json", text, err);
  }

 private:
  std::string dir_;
};

class MarkdownReporter : public Reporter {
 public:
  explicit MarkdownReporter(std::string dir) : dir_(std::move(dir)) {}
  void files_go_to(const std::string& dir) override { dir_ = dir; }
  bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string* err) override {
    return make_folder(dir_, err) && write_file_atomic(dir_ + "/test_results.md", results_markdown(run, results), err);
  }

 private:
  std::string dir_;
};

class JunitReporter : public Reporter {
 public:
  explicit JunitReporter(std::string path) : path_(std::move(path)) {}
  bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string* err) override {
    return write_file_atomic(path_, results_junit(run, results), err);
  }

 private:
  std::string path_;
};

}  // namespace

Reporters::Reporters(const ReportSettings& report, const std::string& out_dir, ConsoleStyle console) {
  all_.push_back(std::make_unique<JsonReporter>(out_dir));
  all_.push_back(std::make_unique<MarkdownReporter>(out_dir));
  if (!report.junit_path.empty()) all_.push_back(std::make_unique<JunitReporter>(report.junit_path));
  all_.push_back(make_console_reporter(std::move(console), out_dir, report.junit_path));
}

void Reporters::files_go_to(const std::string& dir) {
  for (auto& rep : all_) rep->files_go_to(dir);
}

void Reporters::case_finished(const CaseResult& r, size_t done, size_t total) {
  for (auto& rep : all_) rep->case_finished(r, done, total);
}

bool Reporters::run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string* err) {
  for (auto& rep : all_)
    if (!rep->run_finished(run, results, err)) return false;
  return true;
}

}  // namespace hk
