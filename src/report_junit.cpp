#include "report_junit.h"

#include <fmt/format.h>
#include <map>

namespace hk {
namespace {

using Outcome = JunitOutcome;
Outcome outcome(Status s) { return status_info(s).junit; }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string testcase(const CaseResult& r) {
  std::string x = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xml_escape(r.kernel),
                              xml_escape(r.case_name), r.timings.wall_ms / 1000.0);
  const Outcome o = outcome(r.status);
  if (o == Outcome::passed) return x + "/>\n";
  x += ">\n";
  std::string verdict = status_name(r.status);
  if (!r.reason.empty()) verdict += " " + r.reason;
  const std::string message = verdict + (r.message.empty() ? "" : ": " + first_line(r.message));
  if (o == Outcome::skipped) {
    const std::string why = r.expected ? "expected " + r.expected->status + ": " + r.expected->why : message;
    x += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(why));
  } else {
    std::string details = r.message;
    if (!r.compile_log.empty()) details += "\n\ncompiler log:\n" + r.compile_log;
    x += fmt::format("      <{0} type=\"{1}\" message=\"{2}\">{3}</{0}>\n", o == Outcome::failure ? "failure" : "error",
                     status_name(r.status), xml_escape(message), xml_escape(details));
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
