// How one output compares with its reference: the numbers a kernel author needs to tell a
// rounding difference from a bug (docs/results.md describes each field).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/case_plan.h"
#include "contracts/output_metrics.h"

namespace hk {

// got: the kernel's output in the device's byte layout; ref: the reference in double.
// The output passes by within_tolerance.
OutputMetrics compare_output(const TensorPlan& t, const std::vector<uint8_t>& got, const std::vector<double>& ref);

// Whether a comparison's figures pass under tol: no element outside tolerance or, with
// max_mismatch_fraction set, at most that fraction of elements outside atol/rtol/ulps and none
// beyond hard_ulps, unwritten or NaN/Inf. The one rule, for the worker and the parent's re-check.
bool within_tolerance(const OutputMetrics& m, const Tolerance& tol);

}  // namespace hk
