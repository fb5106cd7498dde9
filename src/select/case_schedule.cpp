#include "select/case_schedule.h"

#include <algorithm>
#include <numeric>

#include "select/case_filter.h"
#include "model/case_plan.h"
#include "model/plan_case.h"

namespace hk {

double estimated_case_cost(const KernelSpec& k, const CaseSpec& c) {
  constexpr double kPerCase = 1e5;
  try {
    const CasePlan p = plan_case(k, c);
    double elements = 0;
    for (const TensorPlan& t : p.tensors) elements += static_cast<double>(t.numel);
    return kPerCase + elements;
  } catch (const std::exception&) {
    return kPerCase;
  }
}

std::vector<double> expected_costs(const std::vector<ScheduledCase>& cases, const std::map<std::string, double>& recorded_ms) {
  std::vector<double> estimate(cases.size()), cost(cases.size(), -1);
  double known_ms = 0, known_estimate = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    estimate[i] = estimated_case_cost(*cases[i].kernel, *cases[i].c);
    const auto it = recorded_ms.find(case_id(cases[i].kernel->name, cases[i].c->name));
    if (it == recorded_ms.end() || !(it->second >= 0)) continue;
    cost[i] = it->second;
    known_ms += it->second;
    known_estimate += estimate[i];
  }
  // Recorded times and estimates are not on one scale: the recorded cases give the rate.
  const double ms_per_unit = known_estimate > 0 && known_ms > 0 ? known_ms / known_estimate : kDefaultMsPerEstimate;
  for (size_t i = 0; i < cases.size(); ++i)
    if (cost[i] < 0) cost[i] = estimate[i] * ms_per_unit;
  return cost;
}

std::vector<std::vector<size_t>> schedule_units(const std::vector<const void*>& kernel_of, const std::vector<double>& cost,
                                                size_t workers, size_t max_unit, double min_unit_cost) {
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  // Half a worker's fair share: with the largest first, the last units to start are small.
  const double cap = total > 0 ? std::max(total / (2.0 * static_cast<double>(std::max<size_t>(workers, 1))), min_unit_cost) : 0;
  std::vector<std::vector<size_t>> units;
  std::vector<double> unit_cost;
  for (size_t i = 0; i < kernel_of.size(); ++i) {
    const bool full = !units.empty() && (units.back().size() >= max_unit || (cap > 0 && unit_cost.back() + cost[i] > cap));
    if (units.empty() || kernel_of[units.back().front()] != kernel_of[i] || full) {
      units.emplace_back();
      unit_cost.push_back(0);
    }
    units.back().push_back(i);
    unit_cost.back() += cost[i];
  }
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return unit_cost[a] > unit_cost[b]; });
  std::vector<std::vector<size_t>> started;
  for (size_t u : order) started.push_back(std::move(units[u]));
  return started;
}

}  // namespace hk
