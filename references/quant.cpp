// CPU references for the quantization kernels (kernels/quant/).
#include "reference.h"

#include <algorithm>
#include <cmath>

// per_token_quant_fwd: scale = max|x_row| / 127 (exact, in double), q = clamp(rint(x / s), +-127).
// The kernel divides by its stored f32 scale in f32. Both steps are one correctly rounded f32
// division of f32 operands, which double-then-float reproduces exactly (53 >= 2 * 24 + 2), so
// q is modelled bit for bit: s = f32(amax / 127), q = rint(f32(x / s)).
HK_REFERENCE(per_token_quant_fwd) {
  auto x = ctx.matrix("x");
  auto q = ctx.matrix("q", x.rows(), x.cols());
  auto& scale = ctx.tensor("scale").data;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double amax = x.row(r).cwiseAbs().maxCoeff();
    scale[r] = amax / 127.0;
    const double s = ctx.round_to("scale", scale[r]);  // the f32 scale the kernel divides by
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      const double v = s == 0.0 ? 0.0 : std::rint(static_cast<double>(static_cast<float>(x(r, c) / s)));
      q(r, c) = std::clamp(v, -127.0, 127.0);
    }
  }
}

// fused_rmsnorm_fp8_quant_fwd: y = x * w / sqrt(mean(x^2) + eps), scale = max|y_row| / 448,
// q = e4m3(y / scale) rounded to nearest even (saturating) via round_to("q").
// y is also handed back as the tensor "y" for the manifest's dequantization check.
HK_REFERENCE(fused_rmsnorm_fp8_quant_fwd) {
  auto x = ctx.matrix("x");
  const auto& wt = ctx.tensor("w").data;
  const Eigen::Map<const Eigen::RowVectorXd> w(wt.data(), static_cast<Eigen::Index>(wt.size()));
  auto q = ctx.matrix("q", x.rows(), x.cols());
  auto& scale = ctx.tensor("scale").data;
  const double eps = static_cast<float>(ctx.num("eps"));  // passed to the kernel as f32
  hk::ref::RowMatrix normalized(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double rstd = 1.0 / std::sqrt(x.row(r).squaredNorm() / static_cast<double>(x.cols()) + eps);
    const Eigen::RowVectorXd y = x.row(r).cwiseProduct(w) * rstd;
    const double amax = y.cwiseAbs().maxCoeff();
    scale[r] = amax / 448.0;
    for (Eigen::Index c = 0; c < x.cols(); ++c)
      q(r, c) = scale[r] == 0.0 ? 0.0 : ctx.round_to("q", y(c) / scale[r]);
    normalized.row(r) = y;
  }
  ctx.tensors["y"] = hk::ref::Tensor{"y", "f64", ctx.tensor("x").shape,
                                     std::vector<double>(normalized.data(), normalized.data() + normalized.size())};
}
