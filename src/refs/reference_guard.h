// Spare room after each output a reference writes, filled with a pattern and checked when the
// reference returns: a reference that writes past an output (one sized by an input with more
// rows, say) is an ERROR that names it, instead of heap damage that a later step reads as the
// kernel's crash.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hk {

constexpr size_t kReferenceGuardDoubles = 512;  // 4 KiB

// Sizes data to n values of fill, with the guard pattern in the spare room behind them.
void arm_reference_guard(std::vector<double>& data, size_t n, double fill);

// "" when the guard behind data is intact, else what was overwritten ("3 values, from 0 past the
// end"). A vector the reference resized or replaced is not judged here.
std::string reference_guard_breach(const std::vector<double>& data, const double* armed_at, size_t armed_size);

}  // namespace hk
