// JUnit XML as CI systems read it: per kernel suites with counts that add up, each verdict in
// its element, and text that cannot break the XML.
#include "report/report_junit.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

CaseResult make(const std::string& kernel, const std::string& name, Status st, const std::string& message = "") {
  CaseResult r;
  r.kernel = kernel;
  r.case_name = name;
  r.status = st;
  r.message = message;
  r.timings.wall_ms = 1500;
  return r;
}

TEST(ReportJunit, EachVerdictInItsElementAndCountsAddUp) {
  std::vector<CaseResult> rs = {make("rmsnorm", "n=1", Status::PASS), make("rmsnorm", "n=2", Status::FAIL, "out: 3 of 8 elements\nmore"),
                                make("rmsnorm", "n=3", Status::CRASH, "signal 11"), make("silu", "a", Status::SKIP, "over the limit"),
                                make("silu", "b", Status::COMPILE_ERROR, "silu does not compile: x.cu(3): error")};
  rs[3].reason = "HW_LIMIT";
  rs[4].compile_log = "x.cu(3): error: expected a ;";
  RunInfo run;
  run.spec.backend = "host";
  const std::string x = results_junit(run, rs);
  EXPECT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hkcheck\" tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\"", 0), 0u) << x;
  EXPECT_NE(x.find("<testsuite name=\"rmsnorm\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"4.500\""), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"silu\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"1\""), std::string::npos) << x;
  EXPECT_EQ(count(x, "<testcase "), 5u);
  EXPECT_NE(x.find("<failure type=\"FAIL\" message=\"FAIL: out: 3 of 8 elements\">"), std::string::npos) << "the first line is the message";
  EXPECT_NE(x.find("<skipped message=\"SKIP HW_LIMIT: over the limit\"/>"), std::string::npos) << x;
  EXPECT_NE(x.find("compiler log:\nx.cu(3): error: expected a ;"), std::string::npos) << "the log goes in the error's text";
  EXPECT_EQ(count(x, "<testsuite "), count(x, "</testsuite>"));
}

// A failure says what was wrong: its message is the one-line reason, its text the figures and
// first mismatch of each wrong output and the guard breaches; a compiler log is cut to its start.
TEST(ReportJunit, AFailureCarriesItsReasonAndDetails) {
  CaseResult r = make("rmsnorm", "n=2", Status::FAIL);
  OutputMetrics o;
  o.name = "out", o.dtype = "f32", o.numel = 64, o.mismatches = 3, o.pass = false, o.max_abs_diff = 0.5;
  o.first_mismatch = ElementDiff{{1, 5}, 3.0, 2.0};
  r.outputs.push_back(o);
  r.guards.push_back(GuardViolation{"out", "after", 4, 0, 3});
  CaseResult broken = make("silu", "a", Status::COMPILE_ERROR, "silu does not compile: x.cu(1): error");
  for (int i = 0; i < 500; ++i) broken.compile_log += "x.cu(" + std::to_string(i) + "): error: expected a ;\n";
  const std::string x = results_junit(RunInfo{}, {r, broken});
  EXPECT_NE(x.find("<failure type=\"FAIL\" message=\"FAIL: out: 3 of 64 outside tolerance; out: 4 byte(s) written after the buffer\">"),
            std::string::npos) << x;
  EXPECT_NE(x.find("first mismatch at [1, 5]: got 3, expected 2"), std::string::npos) << x;
  EXPECT_NE(x.find("guard of out: 4 byte(s) written after the buffer (offsets 0 to 3)"), std::string::npos) << x;
  EXPECT_NE(x.find("x.cu(29): error"), std::string::npos) << "the log's first 30 lines";
  EXPECT_EQ(x.find("x.cu(30): error"), std::string::npos) << "and no more";
  EXPECT_NE(x.find("(470 more line(s): test_results.json, compile_logs)"), std::string::npos) << x;
}

// A case -x or an interrupt left unstarted is not a finding of its own: skipped, with why.
TEST(ReportJunit, NotRunIsSkipped) {
  const std::string x = results_junit(RunInfo{}, {make("k", "a", Status::FAIL, "wrong"), make("k", "b", Status::NOT_RUN, "not started: -x")});
  EXPECT_NE(x.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<skipped message=\"NOT_RUN: not started: -x\"/>"), std::string::npos) << x;
  EXPECT_EQ(x.find("<error"), std::string::npos) << x;
}

TEST(ReportJunit, ExpectedFailuresAreSkippedWithTheirReason) {
  CaseResult r = make("kb", "c", Status::XFAIL, "CRASH");
  r.expected = ExpectedVerdict{"CRASH", "", "faults on purpose"};
  const std::string x = results_junit(RunInfo{}, {r});
  EXPECT_NE(x.find("<skipped message=\"expected CRASH: faults on purpose\"/>"), std::string::npos) << x;
}

TEST(ReportJunit, TextCannotBreakTheXml) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>\x01\x1b\n"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\\x01\\x1b\n");
  const std::string x = results_junit(RunInfo{}, {make("k<1>", "n=\"2\"", Status::ERROR, "bad\x07 byte")});
  EXPECT_NE(x.find("classname=\"k&lt;1&gt;\" name=\"n=&quot;2&quot;\""), std::string::npos) << x;
  EXPECT_EQ(x.find('\x07'), std::string::npos);
}

// A kernel's output with bytes that are not UTF-8, characters XML 1.0 cannot hold and a CDATA end:
// the report stays UTF-8 and holds none of them raw.
TEST(ReportJunit, KernelOutputCannotMakeItIllFormed) {
  CaseResult r = make("k\xff", "c\x01", Status::CRASH, "its output: \xff\xfe\x0b ]]> </error> \xef\xbf\xbf\r\n");
  r.compile_log = "\xc0\x80";
  r.notes = {"note \x1b[31m"};
  const std::string x = results_junit(RunInfo{}, {r});
  EXPECT_TRUE(is_valid_utf8(x)) << x;
  for (const unsigned char c : x) EXPECT_TRUE(c >= 0x20 || c == '\n' || c == '\t') << "a control character " << int(c);
  EXPECT_EQ(x.find("]]>"), std::string::npos);
  EXPECT_EQ(x.find("\xef\xbf\xbf"), std::string::npos) << "U+FFFF is not an XML character";
  EXPECT_EQ(count(x, "</error>"), 1u);
  EXPECT_NE(x.find("classname=\"k\\xff\" name=\"c\\x01\""), std::string::npos) << x;
}

}  // namespace
}  // namespace hk
