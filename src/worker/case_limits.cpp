#include "worker/case_limits.h"

#include <fmt/format.h>

#include <cstdint>

#include "platform/backend_table.h"
#include "process/memory_limit.h"
#include "model/status.h"

namespace hk {

CaseResult skip_limit(CaseResult r, const std::string& what, int64_t requested, int64_t limit) {
  r.status = Status::SKIP;
  r.reason = reason_name(Reason::HW_LIMIT);
  r.limit = LimitExceeded{what, requested, limit};
  r.message = fmt::format("{}: requested {}, device limit {}, over by {}", what, requested, limit, requested - limit);
  return r;
}

// The worker's own copies of a case's tensors: each in double (inputs as generated, outputs as
// the reference writes them) and packed once more in its dtype for the transfer. On the host
// backend the "device" tensors live in the same memory. A case they cannot fit is TOO_LARGE, not
// a worker killed for memory halfway through.
bool over_worker_memory(const CasePlan& plan, const DeviceInfo& dev, int64_t device_bytes, CaseResult& r) {
  double needed = on_cpu(dev.backend) ? static_cast<double>(device_bytes) : 0.0;
  for (const TensorPlan& t : plan.tensors) needed += static_cast<double>(t.numel) * sizeof(double) + static_cast<double>(t.bytes());
  const double memory = static_cast<double>(dev.host_memory > 0 ? static_cast<uint64_t>(dev.host_memory) : physical_memory());
  if (memory <= 0 || needed <= memory) return false;
  const auto as_int = [](double v) { return v >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(v); };
  r.status = Status::SKIP;
  r.reason = reason_name(Reason::TOO_LARGE);
  r.limit = LimitExceeded{"host memory for the worker's copies of the tensors (bytes)", as_int(needed), as_int(memory)};
  r.message = fmt::format("the worker's copies of the tensors (in double and packed{}) need {:.0f} bytes; this machine has {:.0f} "
                          "(over by {:.0f})",
                          on_cpu(dev.backend) ? ", with the host backend's device tensors" : "", needed, memory, needed - memory);
  return true;
}

// Limits that can be judged before compiling: block shape, grid shape, dynamic shared memory.
bool over_device_limits(const CasePlan& p, const DeviceInfo& d, CaseResult& r) {
  if (p.block_threads() > d.max_threads_per_block) {
    r = skip_limit(r, "threads per block", p.block_threads(), d.max_threads_per_block);
    return true;
  }
  static const char* kAxis[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (p.block[i] > d.max_block[i]) {
      r = skip_limit(r, fmt::format("block dimension {}", kAxis[i]), p.block[i], d.max_block[i]);
      return true;
    }
    if (p.grid[i] > d.max_grid[i]) {
      r = skip_limit(r, fmt::format("grid dimension {}", kAxis[i]), p.grid[i], d.max_grid[i]);
      return true;
    }
  }
  if (p.shared_bytes > d.shared_per_block_optin) {
    r = skip_limit(r, "dynamic shared memory per block (bytes)", p.shared_bytes, d.shared_per_block_optin);
    return true;
  }
  return false;
}

}  // namespace hk
