// A child's environment: overrides replace the parent's entry of the same name or add one, what
// passes to workers is inherited (a worker is narrowed to its GPU this way), and the rest of the
// parent's environment is not (worker_environment.h).
#include "process/subprocess.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

namespace hk {
namespace {

TEST(Subprocess, EnvironmentOverridesReplaceAndAdd) {
  setenv("HKCHECK_TEST_INHERITED", "kept", 1);
  setenv("HKCHECK_TEST_REPLACED", "parent", 1);
  setenv("HK_TEST_SECRET", "hidden", 1);
  Subprocess p({"/bin/sh", "-c", "echo \"$HKCHECK_TEST_INHERITED $HKCHECK_TEST_REPLACED $HK_TEST_ADDED [$HK_TEST_SECRET]\""}, 3,
               {"HKCHECK_TEST_REPLACED=child", "HK_TEST_ADDED=new"});
  const ExitStatus st = p.wait();
  EXPECT_TRUE(st.exited && st.code == 0) << st.describe();
  EXPECT_EQ(p.output_tail(100), "kept child new []\n");
}

// The wait every worker's parent uses: stop() ends it before the deadline, and a line that comes
// while stop() says no is read as read_line reads it.
TEST(Subprocess, ReadLineUnlessEndsWhenStopSaysSoAndReadsALineOtherwise) {
  using Clock = std::chrono::steady_clock;
  Subprocess silent({"/bin/sh", "-c", "sleep 60"}, 3);
  int asked = 0;
  std::string line;
  const auto t0 = Clock::now();
  EXPECT_EQ(silent.read_line_unless(line, Clock::now() + std::chrono::seconds(60), [&] { return ++asked > 3; }), Subprocess::Read::timeout);
  EXPECT_EQ(asked, 4);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(30)) << "the wait ran to its deadline";  // a hang bound: 3 steps of 100 ms
  Subprocess speaks({"/bin/sh", "-c", "sleep 0.3; echo hello >&3"}, 3);
  EXPECT_EQ(speaks.read_line_unless(line, Clock::now() + std::chrono::seconds(60), [] { return false; }), Subprocess::Read::line);
  EXPECT_EQ(line, "hello");
}

}  // namespace
}  // namespace hk
