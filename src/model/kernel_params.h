// A manifest's arguments checked against the kernel's parameters where the backend can tell them
// (Backend::parameters): a scalar of the wrong type or size, or a wrong count, would make the
// launch read the wrong bytes and the verdict mean nothing, so it is an ERROR naming both sides.
#pragma once

#include <string>
#include <vector>

#include "platform/backend.h"
#include "model/case_plan.h"

namespace hk {

// "" when every argument fits its parameter; else what does not, one line per argument (the
// count first). Kinds are compared where known (host backend), sizes always: i32 for an int64_t
// or a float, a tensor for a float, f64 for a float.
std::string argument_mismatch(const CasePlan& plan, const std::vector<KernelParam>& params);

}  // namespace hk
