// References for the known-bad corpus (tests/known_bad/) only: not for real kernels.
#include <stdexcept>

#include "reference.h"

// A reference that fails: the case must end as ERROR with this message, and the run go on.
HK_REFERENCE(known_bad_throws) {
  (void)ctx;
  throw std::runtime_error("known_bad_throws: this reference fails on purpose");
}

// A reference that writes past its output, as one that sizes a loop by the wrong tensor would:
// the case must end as ERROR naming the reference, never as the kernel's crash.
HK_REFERENCE(known_bad_writes_past_output) {
  hk::ref::Tensor& out = ctx.tensor("out");
  double* p = out.data.data();
  for (int64_t i = 0; i < out.numel() + 3; ++i) p[i] = 1.0;
}

// The sum of all of x, in out[0] (the leaky_total kernel's result when it works).
HK_REFERENCE(known_bad_total) {
  double total = 0;
  for (double v : ctx.tensor("x").data) total += v;
  ctx.tensor("out").data.assign(1, total);
}

// out[r] += sum of row r of x (the atomic_row_sum kernel: out is inout, starting from its inputs).
HK_REFERENCE(known_bad_row_sum_add) {
  auto x = ctx.matrix("x");
  auto& out = ctx.tensor("out").data;
  for (Eigen::Index r = 0; r < x.rows(); ++r) out[static_cast<size_t>(r)] += x.row(r).sum();
}

// out[r] = the sum of row r of x (the tree_sum kernels).
HK_REFERENCE(known_bad_row_sum) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out", x.rows(), 1);
  for (Eigen::Index r = 0; r < x.rows(); ++r) out(r, 0) = x.row(r).sum();
}
