#include "report/report_junit.h"

#include <fmt/format.h>
#include <map>

#include "report/markdown_budget.h"

namespace hk {
namespace {

using Outcome = JunitOutcome;
Outcome outcome(Status s) { return status_info(s).junit; }

// The one-line reason: "FAIL: out: 3 of 64 outside tolerance", "COMPILE_ERROR: k does not
// compile: k.cu(3): error ...", the same words as the markdown table and the console.
std::string one_line_reason(const CaseResult& r) {
  std::string verdict = status_name(r.status);
  if (!r.reason.empty()) verdict += " " + r.reason;
  std::string note = verdict_note(r);
  if (note.empty()) note = r.message.substr(0, r.message.find('\n'));
  return verdict + (note.empty() ? "" : ": " + note.substr(0, 300));
}

// What a reviewer reads in the CI's test view: each wrong output's figures and first mismatch,
// guard breaches, the message and the first lines of the compiler's log (test_results.json has
// all of it), the repro folder.
std::string failure_body(const CaseResult& r) {
  std::string b = one_line_reason(r) + "\n";
  for (const OutputMetrics& o : r.outputs) {
    if (o.pass) continue;
    b += fmt::format("\noutput {} ({}): {} of {} outside tolerance, {} unwritten, {} NaN/Inf; max abs {:.6g}, max rel {:.6g}, worst {:.3g} ulp; "
                     "tolerance atol {:g} rtol {:g} ulps {:g}\n",
                     o.name, o.dtype, o.mismatches, o.numel, o.unwritten, o.nonfinite, o.max_abs_diff, o.max_rel_diff, o.max_ulps, o.tolerance.atol,
                     o.tolerance.rtol, o.tolerance.ulps);
    if (o.first_mismatch) {
      std::string at;
      for (int64_t i : o.first_mismatch->index) at += (at.empty() ? "" : ", ") + std::to_string(i);
      b += fmt::format("  first mismatch at [{}]: got {:.8g}, expected {:.8g}\n", at, o.first_mismatch->got, o.first_mismatch->expected);
    }
    for (const CheckOutcome& c : o.checks)
      if (!c.pass) b += fmt::format("  {}: {}\n", c.rule, c.summary);
  }
  for (const GuardViolation& g : r.guards)
    b += fmt::format("\nguard of {}: {} byte(s) written {} the buffer (offsets {} to {})\n", g.tensor, g.bytes, g.side, g.first_offset, g.last_offset);
  if (!r.message.empty()) {
    const TextExcerpt e = text_excerpt(r.message, 40, 4000);
    b += "\n" + e.text + (e.lines_left_out ? fmt::format("({} more line(s) in test_results.json)\n", e.lines_left_out) : "");
  }
  if (!r.compile_log.empty()) {
    const TextExcerpt e = text_excerpt(r.compile_log, 30, 3000);
    b += "\ncompiler log:\n" + e.text + (e.lines_left_out ? fmt::format("({} more line(s): test_results.json, compile_logs)\n", e.lines_left_out) : "");
  }
  if (!r.repro.empty()) b += fmt::format("\nrepro: {}/ (rerun: {}/rerun.sh)\n", r.repro, r.repro);
  return b;
}

std::string testcase(const CaseResult& r) {
  std::string x = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xml_escape(r.kernel),
                              xml_escape(r.case_name), r.timings.wall_ms / 1000.0);
  const Outcome o = outcome(r.status);
  if (o == Outcome::passed) return x + "/>\n";
  x += ">\n";
  const std::string message = one_line_reason(r);
  if (o == Outcome::skipped) {
    const std::string why = r.expected ? "expected " + r.expected->status + ": " + r.expected->why : message;
    x += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(why));
  } else {
    x += fmt::format("      <{0} type=\"{1}\" message=\"{2}\">{3}</{0}>\n", o == Outcome::failure ? "failure" : "error",
                     status_name(r.status), xml_escape(message), xml_escape(failure_body(r)));
  }
  if (!r.notes.empty()) {
    std::string notes;
    for (const std::string& n : r.notes) notes += n + "\n";
    x += "      <system-out>" + xml_escape(notes) + "</system-out>\n";
  }
  return x + "    </testcase>\n";
}

struct SuiteCounts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  std::string cases;
  void add(const CaseResult& r) {
    ++tests;
    const Outcome o = outcome(r.status);
    failures += o == Outcome::failure;
    errors += o == Outcome::error;
    skipped += o == Outcome::skipped;
    seconds += r.timings.wall_ms / 1000.0;
    cases += testcase(r);
  }
  std::string counts() const {
    return fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\"", tests, failures, errors, skipped, seconds);
  }
};

}  // namespace

std::string results_junit(const RunInfo& run, const std::vector<CaseResult>& results) {
  std::map<std::string, SuiteCounts> suites;  // by kernel, in name order
  SuiteCounts all;
  for (const CaseResult& r : results) {
    suites[r.kernel].add(r);
    all.add(r);
  }
  const std::string device = run.device ? run.device->name : "";
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"hkcheck\" {}>\n", all.counts());
  for (const auto& [kernel, s] : suites) {
    x += fmt::format("  <testsuite name=\"{}\" {} timestamp=\"{}\" hostname=\"{}\">\n", xml_escape(kernel), s.counts(),
                     xml_escape(run.started_at), xml_escape(run.host));
    x += fmt::format("    <properties>\n      <property name=\"backend\" value=\"{}\"/>\n      <property name=\"device\" value=\"{}\"/>\n"
                     "      <property name=\"seed\" value=\"{}\"/>\n      <property name=\"git_commit\" value=\"{}\"/>\n    </properties>\n",
                     xml_escape(run.spec.backend), xml_escape(device), run.spec.seed, xml_escape(run.git_commit));
    x += s.cases + "  </testsuite>\n";
  }
  return x + "</testsuites>\n";
}

}  // namespace hk
