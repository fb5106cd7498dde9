// References for kernels/norm_pad/rmsnorm_pad.cu: RMSNorm into a wider, zero-padded output.
#include <cmath>

#include "reference.h"

namespace {

// out[r, :D] = z[r] * rsqrt(mean(z[r]^2) + eps) * w, out[r, D:] = 0.
void rmsnorm_padded(const hk::ref::MatrixMap& z, const std::vector<double>& w, double eps,
                    hk::ref::MatrixMap& out) {
  const Eigen::Index D = z.cols();
  if (out.cols() < D) throw std::runtime_error("rmsnorm_pad: out is narrower than x");
  if (static_cast<Eigen::Index>(w.size()) != D) throw std::runtime_error("rmsnorm_pad: w is not [D]");
  const Eigen::Map<const Eigen::RowVectorXd> wv(w.data(), D);
  out.setZero();
  for (Eigen::Index r = 0; r < z.rows(); ++r) {
    const double inv = 1.0 / std::sqrt(z.row(r).squaredNorm() / static_cast<double>(D) + eps);
    out.row(r).head(D) = z.row(r).cwiseProduct(wv) * inv;
  }
}

}  // namespace

HK_REFERENCE(rmsnorm_pad) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  rmsnorm_padded(x, ctx.tensor("w").data, ctx.num("eps"), out);
}

// residual <- x + residual, stored in residual's dtype; the kernel normalises the stored
// (rounded) value, so the reference rounds it too before normalising.
HK_REFERENCE(fused_add_rmsnorm_pad) {
  auto x = ctx.matrix("x");
  auto res = ctx.matrix("residual");
  for (Eigen::Index r = 0; r < res.rows(); ++r)
    for (Eigen::Index c = 0; c < res.cols(); ++c) res(r, c) = ctx.round_to("residual", x(r, c) + res(r, c));
  auto out = ctx.matrix("out");
  rmsnorm_padded(res, ctx.tensor("w").data, ctx.num("eps"), out);
}
