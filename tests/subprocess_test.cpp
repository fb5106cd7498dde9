// A child's environment: overrides replace the parent's entry of the same name or add one, what
// passes to workers is inherited (a worker is narrowed to its GPU this way), and the rest of the
// parent's environment is not (worker_environment.h).
#include "process/subprocess.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hk
