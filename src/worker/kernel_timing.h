// --time: how long a passing case's kernel takes, timed by the device after warm-up, and the
// bandwidth that makes from the bytes its tensors move.
#pragma once

#include "platform/backend.h"
#include "model/case_plan.h"
#include "contracts/result.h"

namespace hk {

// Bytes a launch must move at least: inputs read, outputs written, inout tensors both.
double tensor_bytes_moved(const CasePlan& plan);

// Two warm-up launches, then `launches` timed ones on the same arguments (gb_per_s from the median).
KernelTiming time_kernel(Backend& be, Backend::Kernel fn, const CasePlan& plan, void** args, int launches);

}  // namespace hk
