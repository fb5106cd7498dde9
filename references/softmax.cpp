// CPU reference for kernels/softmax/softmax.cu, in double precision.
// Rows are x viewed as [numel / N, N]: out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
#include "reference.h"

HK_REFERENCE(softmax) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double mx = x.row(r).maxCoeff();
    out.row(r) = (x.row(r).array() - mx).exp().matrix();
    out.row(r) /= out.row(r).sum();
  }
}
