// How one output compared with its reference, as a case's result carries it to the parent and
// into test_results.json (docs/results.md describes each field); check/metrics.h computes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/case_plan.h"

namespace hk {

// A block of at most kWindowRows x kWindowCols elements of the last two dimensions (one row for
// a 1-D output) holding the first mismatch; the other indices are the mismatch's.
struct MismatchWindow {
  std::vector<int64_t> origin;  // full index of the top-left element shown
  int64_t rows = 0, cols = 0;
  std::vector<std::vector<double>> got, expected;
  std::vector<std::vector<bool>> wrong;
};

// For one dimension: the indices along it whose slice holds a mismatch, and the others.
struct SliceSummary {
  int dim = 0;
  int64_t size = 0;
  int64_t wrong_count = 0;
  std::string wrong, right;  // ranges: "1-7, 9"; "" for none
};

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

}  // namespace hk
