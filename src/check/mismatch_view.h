// What a failing output looks like, for a person: the values around the first mismatch, and for
// multi-dimensional outputs which slices (heads, rows, experts...) are wrong and which are right.
// Computed in the worker from the comparison; kept small (ranges, not lists).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "contracts/output_metrics.h"

namespace hk {

// The index of element `flat` of a row-major tensor of this shape.
std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape);

// The window shows at most kWindowRows x kWindowCols elements (contracts/output_metrics.h).
constexpr int64_t kWindowRows = 4, kWindowCols = 8;

// "0-3, 5, 9-10" for the indices where flags[i] == value; more than max_ranges are cut with
// "... (N ranges)".
std::string index_ranges(const std::vector<bool>& flags, bool value, size_t max_ranges = 8);

MismatchWindow window_around(const std::vector<int64_t>& shape, int64_t first_flat, const std::function<double(int64_t)>& got,
                             const std::function<double(int64_t)>& expected, const std::vector<bool>& bad);

// One summary per dimension of an output with two or more; bad holds one flag per element.
std::vector<SliceSummary> summarize_slices(const std::vector<int64_t>& shape, const std::vector<bool>& bad);

}  // namespace hk
