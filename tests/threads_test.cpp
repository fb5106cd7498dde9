// on_threads (util/threads.h): every index once, each on a thread other than the caller's, and
// an exception from a body reaches the caller only after every body has ended.
#include "util/threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace hk {
namespace {

TEST(OnThreads, EveryIndexOnceOnThreadsOfTheirOwn) {
  std::mutex m;
  std::multiset<int> seen;
  std::set<std::thread::id> ids;
  on_threads(5, [&](int t) {
    std::lock_guard<std::mutex> lock(m);
    seen.insert(t);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(seen, (std::multiset<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
  on_threads(0, [&](int) { ADD_FAILURE() << "no body for n = 0"; });
}

TEST(OnThreads, AnExceptionIsRethrownOnceEveryBodyHasEnded) {
  std::atomic<int> finished{0};
  EXPECT_THROW(on_threads(4,
                          [&](int t) {
                            if (t == 0) throw std::runtime_error("body 0");
                            std::this_thread::sleep_for(std::chrono::milliseconds(50));
                            ++finished;
                          }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 3);
}

}  // namespace
}  // namespace hk
