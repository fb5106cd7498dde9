#include "worker/kernel_timing.h"

#include <algorithm>

namespace hk {

double tensor_bytes_moved(const CasePlan& plan) {
  double bytes = 0;
  for (const TensorPlan& t : plan.tensors) bytes += static_cast<double>(t.bytes()) * (t.role == Role::inout ? 2 : 1);
  return bytes;
}

KernelTiming time_kernel(Backend& be, Backend::Kernel fn, const CasePlan& plan, void** args, int launches) {
  constexpr int kWarmUp = 2;  // the first launches pay for module loading and cold caches
  be.time_launches(fn, plan.grid, plan.block, plan.shared_bytes, args, kWarmUp);
  std::vector<double> ms = be.time_launches(fn, plan.grid, plan.block, plan.shared_bytes, args, launches);
  std::sort(ms.begin(), ms.end());
  const double median = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  const double bytes = tensor_bytes_moved(plan);
  return {launches, median, ms.front(), ms.back(), bytes, median > 0 ? bytes / (median * 1e-3) / 1e9 : 0.0};
}

}  // namespace hk
