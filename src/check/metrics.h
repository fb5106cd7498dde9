// How one output compares with its reference: the numbers a kernel author needs to tell a
// rounding difference from a bug (docs/results.md describes each field).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/case_plan.h"
#include "check/mismatch_view.h"

namespace hk {

struct ElementDiff {
  std::vector<int64_t> index;  // multi-dimensional, row-major
  double got = 0, expected = 0;
};

// What an extra check of an output found (output_check.h): the dequantization check of a
// quantized output, the range and distinctness of an index output.
struct CheckOutcome {
  std::string rule;
  bool pass = true;
  std::string summary;                    // one line: what was checked and what was found
  std::map<std::string, double> figures;  // the numbers behind it (docs/results.md)
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
  std::string compare = "elementwise";  // the rule that produced the figures above
  std::vector<CheckOutcome> checks;
  std::optional<ElementDiff> first_mismatch;
  std::optional<ElementDiff> worst;  // where max_abs_diff occurs
  std::optional<MismatchWindow> window;  // around first_mismatch
  std::vector<SliceSummary> slices;      // per dimension, for outputs with two or more
  bool pass = true;
};

// got: the kernel's output in the device's byte layout; ref: the reference in double.
// The output passes by within_tolerance.
OutputMetrics compare_output(const TensorPlan& t, const std::vector<uint8_t>& got, const std::vector<double>& ref);

// Whether a comparison's figures pass under tol: no element outside tolerance or, with
// max_mismatch_fraction set, at most that fraction of elements outside atol/rtol/ulps and none
// beyond hard_ulps, unwritten or NaN/Inf. The one rule, for the worker and the parent's re-check.
bool within_tolerance(const OutputMetrics& m, const Tolerance& tol);

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape);

}  // namespace hk
