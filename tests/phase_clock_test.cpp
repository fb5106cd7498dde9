// A part's CPU time is the process's, over that part only: sleeping costs none, spinning costs
// what it spun, and the case's record keeps each part's CPU through its JSON.
#include "util/phase_clock.h"
#include "contracts/result.h"

#include <chrono>
#include <ctime>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace hk {
namespace {

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Spins until this thread has used ms of CPU (not of wall: a loaded machine takes longer).
void spin_cpu(double ms) {
  const double until = thread_cpu_ms() + ms;
  volatile double sink = 0;
  while (thread_cpu_ms() < until) sink = sink + 1;
}

TEST(PhaseClock, SleepingCostsWallButNoCpu) {
  const PhaseClock clock;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_GE(clock.wall_ms(), 60);
  EXPECT_LT(clock.cpu_ms(), 20);
}

TEST(PhaseClock, CountsTheCpuOfEveryThreadOfTheProcess) {
  const PhaseClock clock;
  std::thread helper([] { spin_cpu(40); });
  spin_cpu(40);
  helper.join();
  EXPECT_GE(clock.cpu_ms(), 79) << "the helper thread's 40 ms, which ended before the part did, count too";
}

TEST(PhaseClock, ACaseKeepsItsPartsCpuThroughJson) {
  CaseResult r;
  r.kernel = "k", r.case_name = "c";
  r.timings.reference_store_ms = 7;
  r.cpu = CaseCpu{1.5, 2.5, 3.5, 4.5, 20};
  const CaseResult back = nlohmann::json(r).get<CaseResult>();
  EXPECT_EQ(back.timings.reference_store_ms, 7);
  EXPECT_EQ(back.cpu.inputs_ms, 1.5);
  EXPECT_EQ(back.cpu.reference_ms, 2.5);
  EXPECT_EQ(back.cpu.reference_store_ms, 3.5);
  EXPECT_EQ(back.cpu.compare_ms, 4.5);
  EXPECT_EQ(back.cpu.case_ms, 20);
}

TEST(PhaseClock, ResultsWrittenBeforeCpuWasMeasuredReadAsZero) {
  CaseResult r;
  r.kernel = "k", r.case_name = "c";
  r.cpu.case_ms = 9;
  nlohmann::json j = r;
  j.erase("cpu_ms");
  j["timings_ms"].erase("reference_store");
  const CaseResult back = j.get<CaseResult>();
  EXPECT_EQ(back.cpu.case_ms, 0);
  EXPECT_EQ(back.timings.reference_store_ms, 0);
}

}  // namespace
}  // namespace hk
