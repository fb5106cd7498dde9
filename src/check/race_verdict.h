// A race the host backend found (race_report.h), said in the case's terms: which tensor and
// which element of it, or which shared memory, and the two accesses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/case_plan.h"
#include "contracts/race_report.h"

namespace hk {

// allocations[i]: the device address of tensor i's allocation, whose first data_offset(offset)
// bytes (guard.h) are its leading guard.
std::string race_message(const RaceReport& race, const std::string& kernel, const std::vector<TensorPlan>& tensors,
                         const std::vector<uint64_t>& allocations);

}  // namespace hk
