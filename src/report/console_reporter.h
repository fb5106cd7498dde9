// The console's view of a run (stderr): on a terminal one status line rewritten in place (done /
// total, verdict counts, elapsed time, ETA) with the cases that did not pass printed above it;
// elsewhere, or with -v, one line per case; with -q nothing but the summary. Every mode ends with
// the summary, the cases that did not pass with their one-line reasons, and with --durations N the
// N slowest cases (README.md, "The console").
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "report/report.h"

namespace hk {

enum class ConsoleMode { status_line, per_case, quiet };

// The console's colour for a verdict's name: the status table's, when stderr is a terminal and
// NO_COLOR is not set.
std::string coloured_status(Status s);

// How the console reporter speaks.
struct ConsoleStyle {
  std::string prefix = "hkcheck";  // of the summary lines
  std::string what;                // before the counts: "compile only, sm_90: "
  bool compile_only = false;       // the time is the compile's, the note the message's first line (the resources)
  int verbosity = 0;               // -1: -q, 0: default, 1: -v
  size_t durations = 0;            // --durations N: list the N slowest cases at the end
};

// The mode for a verbosity when stderr is (or is not) a terminal: the status line needs one.
ConsoleMode console_mode(int verbosity, bool terminal);
// Whether stderr is a terminal that takes control sequences (not TERM=dumb).
bool stderr_is_terminal();

// "1 min 05 s", "12.3 s": a duration as the status line and the summary show it.
std::string human_seconds(double s);

// The status line's text (no control sequences), cut to width columns: done/total, the counts
// of the verdicts seen so far, elapsed, the ETA from the pace so far, and the last case.
std::string status_line_text(size_t done, size_t total, const Counts& c, double elapsed_s, const std::string& last, size_t width);

// "The cases that did not pass": one line each, verdict, id and reason, at most max_lines (then
// "... and N more"); empty when every case passed.
std::vector<std::string> not_passed_lines(const std::vector<CaseResult>& results, size_t max_lines);
// The n slowest cases, slowest first, as "  12.30 s  kernel/case".
std::vector<std::string> slowest_lines(const std::vector<CaseResult>& results, size_t n, bool compile_only);

class Reporter;
std::unique_ptr<Reporter> make_console_reporter(ConsoleStyle style, std::string out_dir, std::string junit);

}  // namespace hk
