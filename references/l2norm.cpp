// References for kernels/l2norm/l2norm.cu: row-wise L2 normalisation and its backward, in double.
#include <cmath>

#include "reference.h"

// y = x / sqrt(sum(x^2) + eps) per row.
HK_REFERENCE(l2norm_fwd) {
  auto x = ctx.matrix("x");
  auto y = ctx.matrix("y");
  const double eps = ctx.num("eps");
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double inv = 1.0 / std::sqrt(x.row(r).squaredNorm() + eps);
    y.row(r) = x.row(r) * inv;
  }
}

// With n = sqrt(sum(x^2) + eps) and y = x / n: dy_i/dx_j = delta_ij / n - x_i x_j / n^3, hence
// dx = (dy - y * sum(dy * y)) / n.
HK_REFERENCE(l2norm_bwd) {
  auto x = ctx.matrix("x");
  auto dy = ctx.matrix("dy");
  auto dx = ctx.matrix("dx");
  const double eps = ctx.num("eps");
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double inv = 1.0 / std::sqrt(x.row(r).squaredNorm() + eps);
    const Eigen::RowVectorXd y = x.row(r) * inv;
    const double s = dy.row(r).dot(y);
    dx.row(r) = (dy.row(r) - y * s) * inv;
  }
}
