#include "reporters.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#include "file_util.h"
#include "report_junit.h"
#include "report_text.h"

namespace hk {
namespace {

bool colour_wanted() {
  static const bool wanted = [] {
    const char* term = std::getenv("TERM");
    return isatty(STDERR_FILENO) && std::getenv("NO_COLOR") == nullptr && !(term && std::string(term) == "dumb");
  }();
  return wanted;
}

bool make_folder(const std::string& dir, std::string* err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) *err = "cannot create " + dir + ": " + ec.message();
  return !ec;
}

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::string dir) : dir_(std::move(dir)) {}
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

class ConsoleReporter : public Reporter {
 public:
  ConsoleReporter(ConsoleStyle style, std::string out_dir, std::string junit)
      : style_(std::move(style)), out_dir_(std::move(out_dir)), junit_(std::move(junit)) {}
  void case_finished(const CaseResult& r, size_t done, size_t total) override {
    const double ms = style_.compile_only ? r.timings.compile_ms : r.timings.wall_ms;
    const std::string note = style_.compile_only      ? r.message.substr(0, r.message.find('\n')).substr(0, 160)
                             : r.status == Status::PASS ? ""
                                                        : verdict_note(r).substr(0, 160);
    // The name is padded before it is coloured, so the columns stay aligned.
    const std::string status = coloured_status(r.status) + std::string(13 - std::min<size_t>(13, std::string(status_name(r.status)).size()), ' ');
    const std::string count = total ? fmt::format("[{:>4}/{}]", done, total) : fmt::format("[{:>4}]", done);
    // Names and notes are the kernel's text: no control sequence of theirs reaches the terminal.
    fmt::print(stderr, "{} {:<28} {:<40} {} {:6.2f} s{}\n", count, terminal_line(r.kernel), terminal_line(r.case_name), status, ms / 1000,
               note.empty() ? "" : "  " + terminal_line(note));
  }
  bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string*) override {
    fmt::print(stderr, "{}: {}{} in {:.1f} s\n", style_.prefix, style_.what, counts_line(count_results(results)), run.wall_s);
    fmt::print(stderr, "{}: wrote {}/test_results.json and .md{}\n", style_.prefix, out_dir_, junit_.empty() ? "" : " and " + junit_);
    return true;
  }

 private:
  ConsoleStyle style_;
  std::string out_dir_, junit_;
};

}  // namespace

std::string coloured_status(Status s) {
  if (!colour_wanted() || *status_info(s).colour == '\0') return status_name(s);
  return fmt::format("\033[{}m{}\033[0m", status_info(s).colour, status_name(s));
}

Reporters::Reporters(const ReportSettings& report, const std::string& out_dir, ConsoleStyle console) {
  all_.push_back(std::make_unique<JsonReporter>(out_dir));
  all_.push_back(std::make_unique<MarkdownReporter>(out_dir));
  if (!report.junit_path.empty()) all_.push_back(std::make_unique<JunitReporter>(report.junit_path));
  all_.push_back(std::make_unique<ConsoleReporter>(std::move(console), out_dir, report.junit_path));
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
