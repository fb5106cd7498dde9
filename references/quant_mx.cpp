// CPU references for the OCP MX and static fp8 quantization kernels (kernels/quant/): modules
// fused_mxfp4_quant and quant_moe.
#include <algorithm>
#include <cmath>

#include "reference.h"

namespace {

// The OCP MX shared scale of a block of fp4 e2m1 values: 2^(floor(log2 amax) - 2), 2 being emax
// of e2m1, clamped to e8m0's range [2^-127, 2^127]; an all-zero block gets 2^-127.
double mx_fp4_scale(double amax) {
  if (amax == 0) return std::ldexp(1.0, -127);
  int e = 0;
  std::frexp(amax, &e);  // amax = m * 2^e, m in [0.5, 1): floor(log2 amax) = e - 1
  return std::ldexp(1.0, std::clamp(e - 1 - 2, -127, 127));
}

// Quantizes each row of y (rows x cols) in blocks of 32 along the row into q (rounded to q's
// dtype through ctx.round_to, fp4 e2m1 RNE saturating) and scale (rows x ceil(cols / 32)).
void mx_quantize(hk::ref::Context& ctx, const hk::ref::RowMatrix& y, const std::string& q_name,
                 const std::string& scale_name) {
  const Eigen::Index rows = y.rows(), cols = y.cols(), nblocks = (cols + 31) / 32;
  auto q = ctx.matrix(q_name, rows, cols);
  auto s = ctx.matrix(scale_name, rows, nblocks);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index b = 0; b < nblocks; ++b) {
      const Eigen::Index c0 = b * 32, n = std::min<Eigen::Index>(32, cols - c0);
      const double scale = mx_fp4_scale(y.row(r).segment(c0, n).cwiseAbs().maxCoeff());
      s(r, b) = scale;
      for (Eigen::Index c = c0; c < c0 + n; ++c) q(r, c) = ctx.round_to(q_name, y(r, c) / scale);
    }
  }
}

}  // namespace

// fused_rmsnorm_mxfp4_quant_fwd (module fused_mxfp4_quant): y = x * w / sqrt(mean(x^2) + eps)
// in double, then MX fp4 quantization of y in blocks of 32. y is also handed back as the tensor
// "y" for the manifest's dequantization check. The kernel computes y in f32, so a value on a
// rounding boundary of fp4, or a block max next to a power of two, may legitimately land one
// step away: the manifest declares that allowance.
HK_REFERENCE(fused_rmsnorm_mxfp4_quant_fwd) {
  auto x = ctx.matrix("x");
  const auto& wt = ctx.tensor("w").data;
  const Eigen::Map<const Eigen::RowVectorXd> w(wt.data(), static_cast<Eigen::Index>(wt.size()));
  const double eps = static_cast<float>(ctx.num("eps"));  // passed to the kernel as f32
  hk::ref::RowMatrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double rstd = 1.0 / std::sqrt(x.row(r).squaredNorm() / static_cast<double>(x.cols()) + eps);
    y.row(r) = x.row(r).cwiseProduct(w) * rstd;
  }
  mx_quantize(ctx, y, "q", "scale");
  const hk::ref::Tensor& xt = ctx.tensor("x");
  ctx.tensors["y"] = hk::ref::Tensor{"y", "f64", xt.shape, std::vector<double>(y.data(), y.data() + y.size())};
}

// downcast_to_mxfp (module quant_moe): MX fp4 quantization of x along its last dim. Exact: the
// kernel's x / scale is a division by a power of two.
HK_REFERENCE(downcast_to_mxfp) {
  const hk::ref::RowMatrix x = ctx.matrix("x");
  mx_quantize(ctx, x, "q", "scale");
}

// upcast_from_mxfp (module quant_moe): y = q * scale of q's block of 32 along the last dim,
// rounded to y's dtype (exact unless the product leaves its exponent range).
HK_REFERENCE(upcast_from_mxfp) {
  auto q = ctx.matrix("q");
  const Eigen::Index nblocks = (q.cols() + 31) / 32;
  auto s = ctx.matrix("scale", q.rows(), nblocks);
  auto y = ctx.matrix("y", q.rows(), q.cols());
  for (Eigen::Index r = 0; r < q.rows(); ++r)
    for (Eigen::Index c = 0; c < q.cols(); ++c) y(r, c) = ctx.round_to("y", q(r, c) * s(r, c / 32));
}

// downcast_to_static_fp8 (module quant_moe): q = e4m3(f32(x * f32(1 / scale))). Both f32 steps
// are single correctly rounded operations on f32 operands, which double-then-float reproduces
// exactly, so q is modelled bit for bit.
HK_REFERENCE(downcast_to_static_fp8) {
  const auto& x = ctx.tensor("x").data;
  auto& q = ctx.tensor("q").data;
  const double inv = static_cast<float>(1.0 / ctx.tensor("scale").data.at(0));
  for (size_t i = 0; i < x.size(); ++i) q[i] = ctx.round_to("q", static_cast<float>(x[i] * inv));
}
