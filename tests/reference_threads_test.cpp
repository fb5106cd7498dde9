// The threads of a reference (reference_threads.h) and its parallel loop (Context::parallel_for).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "util/parallel_for.h"
#include "reference.h"
#include "refs/reference_threads.h"

namespace hk {
namespace {

TEST(ReferenceThreads, TakesWholeNumbersFrom1To1024) {
  std::string error;
  EXPECT_EQ(parse_reference_threads("1", &error), 1);
  EXPECT_EQ(parse_reference_threads("1024", &error), 1024);
  EXPECT_TRUE(error.empty());
  for (const char* bad : {"", "0", "1025", "99999999999", "-2", "3x", " 4", "2.0"}) {
    error.clear();
    EXPECT_EQ(parse_reference_threads(bad, &error), 0) << bad;
    EXPECT_NE(error.find("HKCHECK_REF_THREADS"), std::string::npos) << bad;
  }
}

TEST(ReferenceThreads, TheEnvironmentOverridesTheWorkersShare) {
  set_parallel_threads(3);
  unsetenv("HKCHECK_REF_THREADS");
  EXPECT_EQ(reference_threads(), 3);
  setenv("HKCHECK_REF_THREADS", "5", 1);
  EXPECT_EQ(reference_threads(), 5);
  setenv("HKCHECK_REF_THREADS", "many", 1);
  EXPECT_EQ(reference_threads(), 3);  // said on stderr, ignored
  unsetenv("HKCHECK_REF_THREADS");
  set_parallel_threads(1);
}

TEST(ReferenceContext, ParallelForCallsEveryIndexOnceOnSeveralThreads) {
  ref::Context ctx;
  ctx.threads = 4;
  std::vector<std::atomic<int>> calls(1000);
  ctx.parallel_for(1000, [&](int64_t i) { ++calls[static_cast<size_t>(i)]; });
  for (const auto& c : calls) EXPECT_EQ(c.load(), 1);
  ctx.parallel_for(0, [&](int64_t) { FAIL() << "no index in an empty range"; });
}

TEST(ReferenceContext, ParallelForRethrowsAfterEveryIndexHasRun) {
  ref::Context ctx;
  ctx.threads = 3;
  std::atomic<int> ran{0};
  EXPECT_THROW(ctx.parallel_for(50,
                                [&](int64_t i) {
                                  ++ran;
                                  if (i == 7) throw std::runtime_error("index 7");
                                }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50);
}

}  // namespace
}  // namespace hk
