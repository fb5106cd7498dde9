// While the precompiled header is being made, a quarter of the compiles go without it and the
// rest wait for it; once made, every compile takes it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "compile/header_being_made.h"

namespace hk {
namespace {

using namespace std::chrono_literals;

// A header whose making ends when the test says so, or when the test ends (a broken rule then
// fails the test instead of hanging it): the destructor's body releases it before the header's
// thread is joined.
struct HeldHeader {
  explicit HeldHeader(std::string path)
      : released(promise.get_future().share()), header([f = released, path] {
          f.wait();
          return path;
        }) {}
  ~HeldHeader() { release(); }
  void release() { std::call_once(once, [&] { promise.set_value(); }); }

  std::promise<void> promise;
  std::shared_future<void> released;
  std::once_flag once;
  HeaderBeingMade header;
};

// Whether f answered within 5 s; if not, the header is released first, so that leaving the test
// (which waits for f's thread) cannot hang.
bool answered(std::future<std::pair<std::string, bool>>& f, HeldHeader& held) {
  const bool ok = f.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!ok) held.release();
  return ok;
}

// header_for_compile on a thread of its own: (header, took_early).
std::future<std::pair<std::string, bool>> ask(const HeaderBeingMade& header, EarlyCompiles& early) {
  return std::async(std::launch::async, [&] {
    bool took = false;
    std::string h = header_for_compile(&header, early, &took);
    return std::make_pair(h, took);
  });
}

TEST(HeaderBeingMade, AQuarterOfTheCompilesGoWithoutItTheRestWait) {
  HeldHeader held("/cache/reference.h");
  const HeaderBeingMade& header = held.header;
  EarlyCompiles early(8);  // 2 early slots
  for (int i = 0; i < 2; ++i) {
    auto early_one = ask(header, early);
    ASSERT_TRUE(answered(early_one, held)) << "compile " << i << " waited for the header";
    EXPECT_EQ(early_one.get(), std::make_pair(std::string(), true));
  }
  auto third = ask(header, early);
  EXPECT_EQ(third.wait_for(200ms), std::future_status::timeout) << "a third compile went without the header";
  held.release();
  EXPECT_EQ(third.get(), std::make_pair(std::string("/cache/reference.h"), false));
}

TEST(HeaderBeingMade, ASlotGivenBackIsTakenAgain) {
  HeldHeader held("/h");
  const HeaderBeingMade& header = held.header;
  EarlyCompiles early(3);  // at least one slot
  auto first = ask(header, early);
  ASSERT_TRUE(answered(first, held));
  EXPECT_EQ(first.get(), std::make_pair(std::string(), true));
  EXPECT_FALSE(early.try_take());
  early.give_back();
  auto again = ask(header, early);
  ASSERT_TRUE(answered(again, held));
  EXPECT_EQ(again.get(), std::make_pair(std::string(), true));
}

TEST(HeaderBeingMade, OnceMadeEveryCompileTakesItAndNoSlot) {
  HeaderBeingMade header([] { return std::string("/made.h"); });
  EXPECT_EQ(header.wait(), "/made.h");
  EarlyCompiles early(16);
  for (int i = 0; i < 10; ++i) {
    bool took = true;
    EXPECT_EQ(header_for_compile(&header, early, &took), "/made.h");
    EXPECT_FALSE(took);
  }
}

TEST(HeaderBeingMade, AMakingThatThrowsGivesNoHeader) {
  HeaderBeingMade header([]() -> std::string { throw std::runtime_error("no compiler"); });
  EXPECT_EQ(header.wait(), "");
  EXPECT_EQ(header.now(), std::optional<std::string>(""));
  EarlyCompiles early(4);
  bool took = true;
  EXPECT_EQ(header_for_compile(nullptr, early, &took), "");  // no header at all
  EXPECT_FALSE(took);
}

}  // namespace
}  // namespace hk
