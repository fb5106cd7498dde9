// The contract between hkcheck and a CPU reference: a reference reads the case's parameters and
// input tensors (already rounded to their dtype, as the kernel sees them), and writes every
// output tensor in double precision. Inout tensors arrive holding their initial values.
//
// References are compiled when a run needs them, by the system C++ compiler with Eigen, one
// shared library per reference file (with reference_context.cpp beside this header), and loaded
// by hkcheck's workers: adding one needs no rebuild of hkcheck.
#pragma once
// A guard as well: hkcheck forces a precompiled copy of this header in first, and the guard keeps
// the reference file's own #include of it from defining everything again.
#ifndef HK_REFERENCE_H
#define HK_REFERENCE_H

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace hk::ref {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;

struct Tensor {
  std::string name;
  std::string dtype;           // "f32", "bf16", ...
  std::vector<int64_t> shape;  // row-major
  std::vector<double> data;    // size == product of shape
  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  int64_t dim(int i) const;    // shape[i]; negative i counts from the end
};

class Context {
 public:
  // Numeric parameter of the case (manifest params); throws std::runtime_error when absent.
  double num(const std::string& name) const;
  int64_t integer(const std::string& name) const;
  // String parameter of the case (e.g. "mode": "neox").
  std::string str(const std::string& name) const;
  bool has(const std::string& name) const;

  Tensor& tensor(const std::string& name);  // any role; throws when absent
  // The tensor viewed as [numel / last_dim, last_dim] (or [rows, cols] if given).
  MatrixMap matrix(const std::string& name);
  MatrixMap matrix(const std::string& name, int64_t rows, int64_t cols);
  // Rounds v to the named tensor's dtype (for references that model an intermediate store).
  double round_to(const std::string& tensor_name, double v) const;

  // Calls fn(i) for every i in [0, n), from up to `threads` threads, and returns when all are
  // done; an exception from fn is rethrown here once every index has finished. Each index must
  // write only its own part of the outputs (no sums shared between indices): then the result is
  // the same bit for bit whatever the thread count. For the loops over heads, batches, rows.
  void parallel_for(int64_t n, const std::function<void(int64_t)>& fn) const;

  // Filled by hkcheck.
  std::map<std::string, double> numbers;
  double (*round_dtype)(const std::string& dtype, double v) = nullptr;  // hkcheck's rounding, for round_to
  std::map<std::string, std::string> strings;
  std::map<std::string, Tensor> tensors;
  int threads = 1;  // for parallel_for: the worker's share of the cores (at least 1)
};

// a * b, evaluated in tiles of 256 rows of a by 512 columns of b on ctx's threads. The tiles are
// the same for any thread count, so the product is the same bit for bit. Why tiles this size:
// Eigen packs the part of b a tile uses once per tile, and with tiles of 64 rows a 2048-row
// product packed all of b 32 times, which took a third of its time; 256 x 512 keeps a product of
// a few rows parallel too (64 x 8192 times 8192 x 8192 is 16 tiles).
template <typename A, typename B>
RowMatrix product(const Context& ctx, const A& a, const B& b) {
  const RowMatrix lhs = a;  // an expression (a view, a transpose) is evaluated once
  RowMatrix out(lhs.rows(), b.cols());
  constexpr Eigen::Index kRows = 256, kCols = 512;
  const Eigen::Index col_tiles = (b.cols() + kCols - 1) / kCols, tiles = (lhs.rows() + kRows - 1) / kRows * col_tiles;
  ctx.parallel_for(tiles, [&](int64_t i) {
    const Eigen::Index r0 = i / col_tiles * kRows, c0 = i % col_tiles * kCols;
    const Eigen::Index rows = std::min(kRows, lhs.rows() - r0), cols = std::min(kCols, b.cols() - c0);
    out.block(r0, c0, rows, cols).noalias() = lhs.middleRows(r0, rows) * b.middleCols(c0, cols);
  });
  return out;
}

// x(r, c) *= s(r / row_block, c / col_block) for every element: the block scales of a quantized
// operand (row_block 1 for a scale per row and K group, 128 for one per 128 x 128 tile). Each
// block's scale is read once and its segment of the row scaled at once; every element is still
// one product, rounded once.
template <typename S>
void scale_blocks(Eigen::Ref<RowMatrix> x, const S& s, Eigen::Index row_block, Eigen::Index col_block) {
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    for (Eigen::Index c0 = 0; c0 < x.cols(); c0 += col_block)
      x.row(r).segment(c0, std::min(col_block, x.cols() - c0)) *= s(r / row_block, c0 / col_block);
}

// What `product` was called where a had few rows, when its tiles covered rows only; kept for the
// references of projects that call it.
template <typename A, typename B>
RowMatrix tiled_product(const Context& ctx, const A& a, const B& b) {
  return product(ctx, a, b);
}

using Function = std::function<void(Context&)>;

// Registry from reference name (the manifest's "reference") to function.
const Function* find(const std::string& name);
std::vector<std::string> names();

struct Registrar {
  Registrar(const char* name, Function fn);
};

}  // namespace hk::ref

// What a reference library exports to hkcheck (reference_context.cpp defines them). The version
// changes whenever Context or Function changes shape, so a library built for another hkcheck is
// refused instead of misread.
#define HK_REFERENCE_ABI 2
extern "C" int hk_reference_abi();
extern "C" const hk::ref::Function* hk_reference_find(const char* name);

// Defines and registers a reference: HK_REFERENCE(rmsnorm) { auto x = ctx.matrix("x"); ... }
#define HK_REFERENCE(name)                                                 \
  static void hk_reference_##name(::hk::ref::Context& ctx);               \
  static const ::hk::ref::Registrar hk_registrar_##name(#name, hk_reference_##name); \
  static void hk_reference_##name(::hk::ref::Context& ctx)

#endif  // HK_REFERENCE_H
