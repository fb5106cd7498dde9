// How one output compares with its reference: the numbers a kernel author needs to tell a
// rounding difference from a bug (docs/results.md describes each field).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "case_plan.h"
#include "mismatch_view.h"

namespace hk {

struct ElementDiff {
  std::vector<int64_t> index;  // multi-dimensional, row-major
  double got = 0, expected = 0;
};

// The dequantization check of a quantized output (docs/results.md).
struct DequantMetrics {
  std::string scale, against;
  int64_t block = 0;
  double rel_l2 = 0;      // ||out * scale - against|| / ||against||
  double max_rel_l2 = 0;
  bool pass = true;
};

struct OutputMetrics {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  Tolerance tolerance;
  double max_abs_diff = 0;
  double max_rel_diff = 0;     // over elements whose reference is not 0
  double rel_l2 = 0;           // ||got - ref|| / ||ref|| over finite elements
  double max_ulps = 0;         // worst |got - ref| in ulps of the dtype at ref, over elements off by
                               // more than atol (else at the max_abs_diff element)
  int64_t mismatches = 0;      // elements outside tolerance (unwritten and NaN/Inf included)
  double mismatch_fraction = 0;
  int64_t unwritten = 0;       // still holding the poison pattern
  int64_t nonfinite = 0;       // NaN or Inf where the reference is finite (unwritten excluded)
  int64_t beyond_hard_ulps = 0;  // elements off by more than tolerance.hard_ulps (when set)
  std::optional<DequantMetrics> dequant;
  std::optional<ElementDiff> first_mismatch;
  std::optional<ElementDiff> worst;  // where max_abs_diff occurs
  std::optional<MismatchWindow> window;  // around first_mismatch
  std::vector<SliceSummary> slices;      // per dimension, for outputs with two or more
  bool pass = true;
};

// got: the kernel's output in the device's byte layout; ref: the reference in double.
// With tolerance.max_mismatch_fraction set, the output passes when at most that fraction of
// elements is outside atol/rtol/ulps, none is beyond hard_ulps, unwritten or NaN/Inf.
OutputMetrics compare_output(const TensorPlan& t, const std::vector<uint8_t>& got, const std::vector<double>& ref);

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape);

}  // namespace hk
