// Which bytes outside its tensors a failing kernel reads. The guards around a float tensor hold
// NaN (guard.h), so a read past an input times a zero weight fails the case; to name the tensor,
// the side and the offset, the case is launched again with guards of zeros (the output it gives
// then is the baseline) and with NaN in one guard at a time, then in ever shorter runs of it next
// to the tensor: the output changes only where the kernel reads. A kernel whose output changes
// between two identical launches is not looked at (its changes would be blamed on the guards).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "model/case_plan.h"
#include "check/guard.h"
#include "contracts/result.h"

namespace hk {

// Launches the case with these guard contents and returns every tensor's bytes after it (the
// inputs' may be empty); nullopt when the launch failed.
using GuardedRelaunch = std::function<std::optional<std::vector<std::vector<uint8_t>>>(const std::vector<BufferGuards>&)>;

// The read nearest to a tensor's edge that changes the output, in bytes as GuardViolation counts
// them (bytes: the element read; offsets from the start before it, from the end after it).
// Launches at most 2 + 2 * tensors + 2 * 8 more times; nullopt when no guard changes the output.
std::optional<GuardViolation> find_outside_read(const CasePlan& plan, const std::vector<BufferGuards>& guards,
                                                const GuardedRelaunch& relaunch);

// "x: reads 4 byte(s) after its end (offsets +0..+3 from the end)", for notes and the verdict.
std::string describe_read(const GuardViolation& g);

}  // namespace hk
