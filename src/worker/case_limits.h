// What a case may ask of the device and of the worker's memory, judged before it runs: a case
// over a limit is SKIP HW_LIMIT or TOO_LARGE with the figures, never a failed launch.
#pragma once

#include <cstdint>
#include <string>

#include "contracts/result.h"
#include "model/case_plan.h"
#include "platform/backend.h"

namespace hk {

// r as SKIP HW_LIMIT: what was over its limit, by how much.
CaseResult skip_limit(CaseResult r, const std::string& what, int64_t requested, int64_t limit);

// The worker's own copies of a case's tensors: each in double (inputs as generated, outputs as
// the reference writes them) and packed once more in its dtype for the transfer; on the host
// backend the device's tensors (device_bytes) too. Over the machine's memory: r is TOO_LARGE.
bool over_worker_memory(const CasePlan& plan, const DeviceInfo& dev, int64_t device_bytes, CaseResult& r);

// Block shape, grid shape and dynamic shared memory over the device's limits: r is HW_LIMIT.
bool over_device_limits(const CasePlan& p, const DeviceInfo& d, CaseResult& r);

}  // namespace hk
