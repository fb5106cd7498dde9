// A case made concrete: every expression of the kernel's manifest evaluated over the case's
// params (dtypes, shapes, generator fields, scalar arguments, launch dimensions, tolerances).
#pragma once

#include <array>
#include <optional>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/dtype.h"
#include "model/manifest.h"
#include "model/check_spec.h"

namespace hk {

struct PlanError : std::runtime_error {
  PlanError(const std::string& json_path, const std::string& what)
      : std::runtime_error(what), path(json_path) {}
  std::string path;  // JSON path inside the manifest
};

struct Tolerance {
  double atol = 0, rtol = 0, ulps = 0;  // 0 switches a criterion off
  double max_mismatch_fraction = 0;     // of elements allowed outside atol/rtol/ulps
  double hard_ulps = 0;                 // with a fraction: no element beyond this (0: no cap)
};
// Per-dtype defaults (docs/manifest.md).
Tolerance default_tolerance(DType t);

struct GeneratorPlan {
  std::string kind;
  std::map<std::string, double> fields;
  std::string reference, output;  // kind "reference" (GeneratorSpec): names, part of every key of the inputs
  bool derived() const { return kind == kDerivedKind; }
};

struct TensorPlan {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  Role role = Role::in;
  GeneratorPlan init;
  Tolerance tolerance;
  std::vector<CheckPlan> checks;  // the comparison rule (if not elementwise) first, then extra checks
  bool deterministic = false;  // launches must agree bit for bit (TensorSpec)
  // The tensor starts this many bytes after an aligned address: a whole number of elements below
  // kMaxOffsetBytes. Moves the buffer, never its values.
  int64_t offset_bytes = 0;
  size_t bytes() const { return storage_bytes(dtype, numel); }
};

// One argument as the kernel receives it; arg_layout.h lays it out in bytes. An array of the
// manifest is planned as a record of its elements (the same layout in C++).
struct ArgPlan {
  ArgKind kind = ArgKind::scalar;  // never ArgKind::array
  int tensor = -1;                 // tensor: index into tensors
  DType dtype = DType::i32;        // scalar
  bool boolean = false;            // scalar: a bool (dtype u8, 0 or 1)
  double value = 0;                // scalar
  std::vector<ArgPlan> fields;     // record
  int64_t align = 0;               // record: the alignment its type declares; 0: its fields'
  int64_t bytes = 0;               // zeros
  std::string name;                // as messages call it; may be empty
};

struct CasePlan {
  std::string kernel, case_name;
  Params params;
  std::vector<TensorPlan> tensors;
  std::vector<ArgPlan> args;
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int64_t shared_bytes = 0;
  std::vector<std::pair<std::string, std::string>> defines;  // after $param substitution

  int64_t block_threads() const { return block[0] * block[1] * block[2]; }
};

// A tensor's offset from an aligned address stays below every alignment a kernel tests for (the
// allocation's 256 bytes): a larger one would be aligned again, or merely waste guard space.
constexpr int64_t kMaxOffsetBytes = 256;

// Elements one tensor may have: far beyond any device's memory, well inside int64 arithmetic.
constexpr int64_t kMaxElements = int64_t{1} << 48;

// An expression of the manifest evaluated over a case's params: a number, or a whole number of
// at least min. Both throw PlanError(path) when the text does not evaluate.
double eval_at(const std::string& text, const Params& p, const std::string& path);
int64_t eval_int_at(const std::string& text, const Params& p, const std::string& path, int64_t min);

// The plan's defines as compiler options, "-DNAME=VALUE", in order.
std::vector<std::string> define_options(const CasePlan& plan);

// Replaces $name and ${name} in text with the params' values; throws PlanError(path) on an
// unknown name.
std::string substitute_params(const std::string& text, const Params& params, const std::string& path);

}  // namespace hk
