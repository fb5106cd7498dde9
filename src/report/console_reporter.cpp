#include "report/console_reporter.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/report_text.h"
#include "process/standard_streams.h"
#include "report/reporter.h"
#include "check/verdict_note.h"

namespace hk {
namespace {

bool colour_wanted() {
  static const bool wanted = [] {
    const char* term = std::getenv("TERM");
    return isatty(STDERR_FILENO) && std::getenv("NO_COLOR") == nullptr && !(term && std::string(term) == "dumb");
  }();
  return wanted;
}

using Clock = std::chrono::steady_clock;

// Lines of "the cases that did not pass" printed before "... and N more": the rest are in the reports.
constexpr size_t kConsoleNotPassedLines = 50;

size_t console_width() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 80;
}

// Characters of a note in a line that no terminal bounds (a CI log): past them its middle goes.
constexpr size_t kLogNoteColumns = 400;

// The one-line reason a case did not pass (or, for compile-only, the message's first line).
std::string console_case_note(const CaseResult& r, bool compile_only) {
  return compile_only ? r.message.substr(0, r.message.find('\n')) : r.status == Status::PASS ? "" : verdict_note(r);
}

double console_case_seconds(const CaseResult& r, bool compile_only) { return (compile_only ? r.timings.compile_ms : r.timings.wall_ms) / 1000; }

class ConsoleReporter : public Reporter {
 public:
  ConsoleReporter(ConsoleStyle style, std::string out_dir, std::string junit)
      : style_(std::move(style)), mode_(console_mode(style_.verbosity, stderr_is_terminal())), out_dir_(std::move(out_dir)),
        junit_(std::move(junit)) {}

  void case_finished(const CaseResult& r, size_t done, size_t total) override {
    counts_.add(r.status);
    if (mode_ == ConsoleMode::quiet) return;
    if (mode_ == ConsoleMode::per_case) return print_case(r, done, total);
    // On a terminal the cases that did not pass stay on the screen, above the status line.
    if (!status_ok(r.status)) {
      clear_status();
      print_case(r, done, total);
    }
    const auto now = Clock::now();
    if (done == total || now - last_draw_ >= std::chrono::milliseconds(100)) {
      last_draw_ = now;
      const double elapsed = std::chrono::duration<double>(now - t0_).count();
      fmt::print(stderr, "\r\033[K{}", status_line_text(done, total, counts_, elapsed, terminal_line(case_id_of(r)), console_width() - 1));
      std::fflush(stderr);
      drawn_ = true;
      status_line_shown(true);
    }
  }

  void files_go_to(const std::string& dir) override { out_dir_ = dir; }

  bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string*) override {
    clear_status();
    if (mode_ != ConsoleMode::quiet) {
      const auto failed = not_passed_lines(results, style_.verbosity > 0 ? results.size() : kConsoleNotPassedLines);
      if (!failed.empty()) fmt::print(stderr, "{}: cases that did not pass:\n", style_.prefix);
      for (const std::string& line : failed) fmt::print(stderr, "  {}\n", fit(terminal_line(line), 2));
    }
    if (style_.durations > 0) {
      fmt::print(stderr, "{}: the {} slowest cases:\n", style_.prefix, std::min(style_.durations, results.size()));
      for (const std::string& line : slowest_lines(results, style_.durations, style_.compile_only))
        fmt::print(stderr, "{}\n", terminal_line(line));
    }
    fmt::print(stderr, "{}: {}{} in {}\n", style_.prefix, style_.what, counts_line(count_results(results)), human_seconds(run.wall_s));
    if (mode_ != ConsoleMode::quiet)
      fmt::print(stderr, "{}: wrote {}/test_results.json and .md{}\n", style_.prefix, out_dir_, junit_.empty() ? "" : " and " + junit_);
    return true;
  }

 private:
  static std::string case_id_of(const CaseResult& r) { return r.kernel + "/" + r.case_name; }

  void clear_status() {
    if (!drawn_) return;
    fmt::print(stderr, "\r\033[K");
    drawn_ = false;
    status_line_shown(false);
  }

  // line fitted to the terminal after `indent` columns, or to a log's bound off a terminal.
  std::string fit(const std::string& line, size_t indent) const {
    return mode_ == ConsoleMode::status_line ? fit_columns(line, console_width() - 1 - indent) : fit_columns(line, kLogNoteColumns);
  }

  void print_case(const CaseResult& r, size_t done, size_t total) const {
    const std::string note = console_case_note(r, style_.compile_only);
    if (mode_ == ConsoleMode::status_line) {
      // On a terminal a line fits its width, the verdict first: a wrapped line splits nothing.
      const std::string line = fmt::format("{} {}/{} {:.2f} s{}", status_name(r.status), terminal_line(r.kernel), terminal_line(r.case_name),
                                           console_case_seconds(r, style_.compile_only), note.empty() ? "" : "  " + terminal_line(note));
      const std::string fitted = fit(line, 0), name = status_name(r.status);
      if (fitted.rfind(name, 0) == 0) fmt::print(stderr, "{}{}\n", coloured_status(r.status), fitted.substr(name.size()));
      else fmt::print(stderr, "{}\n", fitted);
      return;
    }
    // The name is padded before it is coloured, so the columns stay aligned.
    const std::string status = coloured_status(r.status) + std::string(13 - std::min<size_t>(13, std::string(status_name(r.status)).size()), ' ');
    const std::string count = total ? fmt::format("[{:>4}/{}]", done, total) : fmt::format("[{:>4}]", done);
    // Names and notes are the kernel's text: no control sequence of theirs reaches the terminal.
    fmt::print(stderr, "{} {:<28} {:<40} {} {:6.2f} s{}\n", count, terminal_line(r.kernel), terminal_line(r.case_name), status,
               console_case_seconds(r, style_.compile_only), note.empty() ? "" : "  " + fit_columns(terminal_line(note), kLogNoteColumns));
  }

  ConsoleStyle style_;
  ConsoleMode mode_;
  std::string out_dir_, junit_;
  Counts counts_;
  const Clock::time_point t0_ = Clock::now();
  Clock::time_point last_draw_{};
  bool drawn_ = false;  // a status line is on the screen
};

}  // namespace

ConsoleMode console_mode(int verbosity, bool terminal) {
  if (verbosity < 0) return ConsoleMode::quiet;
  return verbosity == 0 && terminal ? ConsoleMode::status_line : ConsoleMode::per_case;
}

bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && !(term && std::string(term) == "dumb");
}

std::string human_seconds(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  const auto whole = static_cast<long long>(s + 0.5);
  if (whole < 3600) return fmt::format("{} min {:02} s", whole / 60, whole % 60);
  return fmt::format("{} h {:02} min", whole / 3600, whole / 60 % 60);
}

std::string status_line_text(size_t done, size_t total, const Counts& c, double elapsed_s, const std::string& last, size_t width) {
  std::string counts;
  for (Status s : every_status())
    if (c[s] > 0) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", c[s], status_name(s));
  std::string eta = "ETA --";
  if (done > 0 && total >= done) eta = "ETA " + human_seconds(elapsed_s / static_cast<double>(done) * static_cast<double>(total - done));
  std::string line = fmt::format("[{}/{}] {} | {} elapsed, {} | {}", done, total, counts.empty() ? "starting" : counts, human_seconds(elapsed_s),
                                 eta, last);
  if (line.size() > width) line.resize(width);
  return line;
}

std::vector<std::string> not_passed_lines(const std::vector<CaseResult>& results, size_t max_lines) {
  std::vector<std::string> out;
  size_t left = 0, not_run = 0;
  for (const CaseResult& r : results) {
    if (status_ok(r.status)) continue;
    if (r.status == Status::NOT_RUN) {  // an interrupt or -x leaves many: one line says how many
      ++not_run;
      continue;
    }
    if (out.size() >= max_lines) {
      ++left;
      continue;
    }
    std::string note = console_case_note(r, false);
    if (note.empty()) note = r.message.substr(0, r.message.find('\n'));
    out.push_back(fmt::format("{} {}/{}{}", status_name(r.status), r.kernel, r.case_name, note.empty() ? "" : " - " + note));
  }
  if (left) out.push_back(fmt::format("... and {} more (test_results.md lists them)", left));
  if (not_run) out.push_back(fmt::format("{} {} {} not run", status_name(Status::NOT_RUN), not_run, not_run == 1 ? "case" : "cases"));
  return out;
}

std::vector<std::string> slowest_lines(const std::vector<CaseResult>& results, size_t n, bool compile_only) {
  std::vector<const CaseResult*> order;
  for (const CaseResult& r : results) order.push_back(&r);
  n = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](const CaseResult* a, const CaseResult* b) { return console_case_seconds(*a, compile_only) > console_case_seconds(*b, compile_only); });
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(fmt::format("  {:8.2f} s  {}/{}", console_case_seconds(*order[i], compile_only), order[i]->kernel, order[i]->case_name));
  return out;
}

std::string coloured_status(Status s) {
  if (!colour_wanted() || *status_info(s).colour == '\0') return status_name(s);
  return fmt::format("\033[{}m{}\033[0m", status_info(s).colour, status_name(s));
}

std::unique_ptr<Reporter> make_console_reporter(ConsoleStyle style, std::string out_dir, std::string junit) {
  return std::make_unique<ConsoleReporter>(std::move(style), std::move(out_dir), std::move(junit));
}

}  // namespace hk
