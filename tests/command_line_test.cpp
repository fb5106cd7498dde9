// The command line as a user types it: options that take one value each leave the kernel names
// alone, and choices are checked.
#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
