// The start order of a run (case_schedule.h): the costliest units first, a kernel's big cases
// spread over several units, each unit one kernel's cases in their order; and the durations
// kept for the next run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run/case_durations.h"
#include "select/case_schedule.h"
#include "test_util.h"

namespace hk {
namespace {

const void* kA = "A";
const void* kB = "B";
const void* kC = "C";

// Every case exactly once, each unit of one kernel in ascending (selection) order.
void expect_partition(const std::vector<std::vector<size_t>>& units, const std::vector<const void*>& kernel_of) {
  std::vector<int> seen(kernel_of.size(), 0);
  for (const auto& u : units) {
    ASSERT_FALSE(u.empty());
    for (size_t i = 0; i < u.size(); ++i) {
      ++seen[u[i]];
      EXPECT_EQ(kernel_of[u[i]], kernel_of[u.front()]) << "a unit holds one kernel";
      if (i > 0) EXPECT_LT(u[i - 1], u[i]) << "a unit keeps the selection's order";
    }
  }
  for (int s : seen) EXPECT_EQ(s, 1);
}

TEST(CaseSchedule, TheLargestStartsFirst) {
  const std::vector<const void*> kernel_of = {kA, kA, kB, kC};
  const std::vector<double> cost = {1, 1, 50, 5};
  const auto units = schedule_units(kernel_of, cost, 1);
  expect_partition(units, kernel_of);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0], std::vector<size_t>{2});
  EXPECT_EQ(units[1], std::vector<size_t>{3});
  EXPECT_EQ(units[2], (std::vector<size_t>{0, 1}));
}

TEST(CaseSchedule, AKernelsBigCasesAreNotQueuedBehindOneWorker) {
  // One kernel of 4 big cases and 8 small ones, two workers: the big ones go to separate units.
  std::vector<const void*> kernel_of(12, kA);
  std::vector<double> cost(12, 1);
  for (size_t i : {3u, 5u, 8u, 11u}) cost[i] = 100;
  const auto units = schedule_units(kernel_of, cost, 2);
  expect_partition(units, kernel_of);
  ASSERT_GE(units.size(), 4u);
  for (size_t u = 0; u < 4; ++u) {
    double c = 0;
    for (size_t i : units[u]) c += cost[i];
    EXPECT_GE(c, 100) << "the big cases' units start first";
    EXPECT_LT(c, 200) << "no two big cases share a unit";
  }
}

TEST(CaseSchedule, SmallWorkIsNotSplitAcrossWorkers) {
  // Below the smallest unit worth a worker start, a kernel's cases stay in one unit.
  const std::vector<const void*> kernel_of(6, kA);
  const std::vector<double> cost = {5, 300, 5, 300, 5, 300};
  EXPECT_EQ(schedule_units(kernel_of, cost, 4, 16, 1000).size(), 1u);
  EXPECT_GT(schedule_units(kernel_of, cost, 4, 16, 0).size(), 1u);
}

TEST(CaseSchedule, WithoutCostsTheSelectionsOrderInUnitsOfSixteen) {
  std::vector<const void*> kernel_of(20, kA);
  kernel_of.insert(kernel_of.end(), 3, kB);
  const auto units = schedule_units(kernel_of, std::vector<double>(23, 0), 4);
  expect_partition(units, kernel_of);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0].size(), 16u);
  EXPECT_EQ(units[0].front(), 0u);
  EXPECT_EQ(units[1].front(), 16u);
  EXPECT_EQ(units[2].front(), 20u);
}

TEST(CaseSchedule, RecordedTimesComeFirstAndEstimatesAreScaledToThem) {
  KernelSpec k;
  k.name = "k";
  k.cases = {CaseSpec{"known"}, CaseSpec{"unknown"}};
  const std::vector<ScheduledCase> cases = {{&k, &k.cases[0]}, {&k, &k.cases[1]}};
  const auto estimates = expected_costs(cases, {});
  EXPECT_EQ(estimates[0], estimated_case_cost(k, k.cases[0]) * kDefaultMsPerEstimate);
  const auto costs = expected_costs(cases, {{"k/known", 40.0}});
  EXPECT_EQ(costs[0], 40.0);
  // The unknown case costs its estimate at the known case's ms per estimated unit.
  EXPECT_DOUBLE_EQ(costs[1], estimates[1] * 40.0 / estimates[0]);
}

// A cold run's compile, computed reference and worker start are not what the case will cost
// next time: the warm order follows what is left.
TEST(CaseDurations, TheNextRunExpectsWhatTheCachesLeave) {
  Timings cold;
  cold.wall_ms = 9000, cold.compile_ms = 1000, cold.reference_ms = 6000, cold.worker_start_ms = 1000;
  EXPECT_DOUBLE_EQ(expected_next_ms(cold, true), 1000);
  EXPECT_DOUBLE_EQ(expected_next_ms(cold, false), 7000) << "without the reference cache the reference runs again";
  Timings warm = cold;
  warm.reference_cached = true, warm.reference_ms = 300, warm.wall_ms = 3300;
  EXPECT_DOUBLE_EQ(expected_next_ms(warm, true), 1300) << "reading the reference back is part of the cost";
}

TEST(CaseDurations, KeptInTheCacheAndMergedRunAfterRun) {
  test::TempDir dir;
  EXPECT_TRUE(load_case_durations(dir.path()).wall_ms.empty()) << "none yet";
  std::string err;
  ASSERT_TRUE(save_case_durations(dir.path(), CaseDurations{{{"a/x", 1.5}, {"b/y", 2}}}, &err)) << err;
  ASSERT_TRUE(save_case_durations(dir.path(), CaseDurations{{{"b/y", 3}}}, &err)) << err;
  const CaseDurations d = load_case_durations(dir.path());
  EXPECT_EQ(d.wall_ms, (std::map<std::string, double>{{"a/x", 1.5}, {"b/y", 3}}));
  EXPECT_EQ(nlohmann::json(d).get<CaseDurations>().wall_ms, d.wall_ms);
  dir.write("case-durations.json", "{\"schema\": \"hkcheck-case-durations\", \"ver");
  EXPECT_TRUE(load_case_durations(dir.path()).wall_ms.empty()) << "a torn file is no durations, not an error";
}

}  // namespace
}  // namespace hk
