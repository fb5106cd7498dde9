// The console's pieces: the mode for a terminal or not, the status line, the closing list of the
// cases that did not pass, the slowest cases (tests/console_check.py runs the whole console).
#include "report/console_reporter.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

CaseResult console_result(const std::string& kernel, const std::string& name, Status s, double wall_ms, const std::string& message = "") {
  CaseResult r;
  r.kernel = kernel, r.case_name = name, r.status = s, r.message = message;
  r.timings.wall_ms = wall_ms;
  return r;
}

TEST(Console, TheStatusLineNeedsATerminalAndNoFlag) {
  EXPECT_EQ(console_mode(0, true), ConsoleMode::status_line);
  EXPECT_EQ(console_mode(0, false), ConsoleMode::per_case);
  EXPECT_EQ(console_mode(1, true), ConsoleMode::per_case);
  EXPECT_EQ(console_mode(-1, true), ConsoleMode::quiet);
  EXPECT_EQ(console_mode(-1, false), ConsoleMode::quiet);
}

TEST(Console, TheStatusLineSaysDoneCountsElapsedAndEta) {
  Counts c;
  for (int i = 0; i < 3; ++i) c.add(Status::PASS);
  c.add(Status::FAIL);
  const std::string line = status_line_text(4, 10, c, 8.0, "silu/n=1", 200);
  EXPECT_EQ(line, "[4/10] 3 PASS, 1 FAIL | 8.0 s elapsed, ETA 12.0 s | silu/n=1");
  EXPECT_EQ(status_line_text(0, 10, Counts{}, 0.2, "", 200).find("ETA --"), std::string("[0/10] starting | 0.2 s elapsed, ").size());
  EXPECT_EQ(status_line_text(4, 10, c, 8.0, "silu/n=1", 20).size(), 20u) << "cut to the terminal's width";
}

TEST(Console, DurationsReadAsPeopleSayThem) {
  EXPECT_EQ(human_seconds(3.04), "3.0 s");
  EXPECT_EQ(human_seconds(65), "1 min 05 s");
  EXPECT_EQ(human_seconds(7325), "2 h 02 min");
}

TEST(Console, TheClosingListNamesEveryCaseThatDidNotPassWithItsReason) {
  const std::vector<CaseResult> results = {console_result("silu", "n=1", Status::PASS, 1), console_result("silu", "n=2", Status::ERROR, 1, "no reference\nmore"),
                                           console_result("gelu", "n=1", Status::SKIP, 1), console_result("gelu", "n=2", Status::CRASH, 1, "SIGSEGV"),
                                           console_result("gelu", "n=3", Status::XFAIL, 1)};
  const auto lines = not_passed_lines(results, 10);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "ERROR silu/n=2 - no reference") << "the message's first line";
  EXPECT_EQ(lines[1], "CRASH gelu/n=2 - SIGSEGV");
  const auto cut = not_passed_lines(results, 1);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[1], "... and 1 more (test_results.md lists them)");
  EXPECT_TRUE(not_passed_lines({results[0], results[2], results[4]}, 10).empty());
}

TEST(Console, TheSlowestCasesComeSlowestFirst) {
  const std::vector<CaseResult> results = {console_result("a", "1", Status::PASS, 1000), console_result("a", "2", Status::PASS, 3000),
                                           console_result("a", "3", Status::FAIL, 2000)};
  const auto lines = slowest_lines(results, 2, false);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "      3.00 s  a/2");
  EXPECT_EQ(lines[1], "      2.00 s  a/3");
  EXPECT_EQ(slowest_lines(results, 9, false).size(), 3u);
}

}  // namespace
}  // namespace hk
