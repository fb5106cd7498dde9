// The command line as a user types it: options that take one value each leave the kernel names
// alone, and choices are checked.
#include "app/cli/command_line.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/last_run.h"

namespace hk {
namespace {

std::optional<int> parse(std::vector<std::string> args, Settings& s) {
  args.insert(args.begin(), "hkcheck");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), s);
}

// `-k M=7 rmsnorm` used to make rmsnorm a second -k pattern, and so select every kernel.
TEST(CommandLine, CasePatternsTakeOneValueEachAndLeaveTheKernelNames) {
  Settings s;
  ASSERT_FALSE(parse({"-k", "M=7", "rmsnorm", "--exclude", "D=4096", "layernorm", "-k", "f16"}, s).has_value());
  EXPECT_EQ(s.select.case_patterns, (std::vector<std::string>{"M=7", "f16"}));
  EXPECT_EQ(s.select.excludes, (std::vector<std::string>{"D=4096"}));
  EXPECT_EQ(s.select.patterns, (std::vector<std::string>{"rmsnorm", "layernorm"}));
}

TEST(CommandLine, SourceNamesAVendor) {
  Settings s;
  ASSERT_FALSE(parse({"--source", "hip", "rmsnorm"}, s).has_value());
  EXPECT_EQ(s.source_vendor, "hip");
  Settings bad;
  EXPECT_EQ(parse({"--source", "sycl"}, bad), std::optional<int>(2));
}

// pytest's spellings of the options a CI job already passes: --junitxml and --collect-only.
TEST(CommandLine, PytestSpellingsAreAliases) {
  Settings s;
  ASSERT_FALSE(parse({"--junitxml", "report.xml", "rmsnorm"}, s).has_value());
  EXPECT_EQ(s.report.junit_path, "report.xml");
  Settings l;
  ASSERT_FALSE(parse({"--collect-only"}, l).has_value());
  EXPECT_EQ(l.mode, ModeName::list);
}

// `list` among the kernels, as pytest takes --collect-only anywhere.
TEST(CommandLine, ListIsAModeAnywhereAmongTheKernels) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--backend", "host", "list"}, {"rmsnorm", "list", "silu"}}) {
    Settings s;
    ASSERT_FALSE(parse(args, s).has_value());
    EXPECT_EQ(s.mode, ModeName::list);
    EXPECT_EQ(std::count(s.select.patterns.begin(), s.select.patterns.end(), "list"), 0) << "the word is the mode, not a kernel";
  }
}

// A bare --lf is the project's last run; a word after it that names no file is a kernel pattern.
TEST(CommandLine, LastFailedTakesAFolderOrTheLastRun) {
  Settings bare;
  ASSERT_FALSE(parse({"--lf", "-x"}, bare).has_value());
  EXPECT_EQ(bare.select.last_failed, kLastRunSentinel);
  EXPECT_TRUE(bare.exit_first);
  Settings named;
  ASSERT_FALSE(parse({"--lf", "rmsnorm"}, named).has_value());
  EXPECT_EQ(named.select.last_failed, kLastRunSentinel);
  EXPECT_EQ(named.select.patterns, (std::vector<std::string>{"rmsnorm"}));
  Settings folder;
  ASSERT_FALSE(parse({"--last-failed", "results/h100", "rmsnorm"}, folder).has_value());
  EXPECT_EQ(folder.select.last_failed, "results/h100");
  EXPECT_EQ(folder.select.patterns, (std::vector<std::string>{"rmsnorm"}));
}

// A mistyped option is named with the nearest one there is.
TEST(CommandLine, AnUnknownOptionGetsTheNearestOne) {
  Settings s;
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse({"--tiemout", "3", "rmsnorm"}, s), std::optional<int>(2));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown option --tiemout (did you mean --timeout?)"), std::string::npos) << err;
}

// --hiprtc-root picks compile-only's hipRTC; a run on a GPU keeps its runtime's, so it is refused there.
TEST(CommandLine, HiprtcRootIsForCompileOnly) {
  Settings s;
  ASSERT_FALSE(parse({"--compile-only", "--arch", "gfx942", "--hiprtc-root", "system"}, s).has_value());
  EXPECT_EQ(s.hiprtc_root, "system");
  Settings run;
  EXPECT_EQ(parse({"--hiprtc-root", "/opt/hiprtc", "rmsnorm"}, run), std::optional<int>(2));
}

}  // namespace
}  // namespace hk
