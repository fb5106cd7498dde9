// Elementwise math of the GDN kernels, one kernel with an op selector (f32 arithmetic, T storage):
//   op 0: exp(x)   op 1: log(x)   op 2: sigmoid(x) = 1 / (1 + exp(-x))
//   op 3: silu(x) = x * sigmoid(x)   op 4: softplus(x) = log(1 + exp(x)), x for x > 20
// gdr_test_ops(out, x, n, op): x, out [n] of type T. Grid and block: any (grid-stride loop).
#include "hkcheck.h"
#include "gdr_common.h"

HK_DEVICE float gdr_apply_op(float x, i32 op) {
  switch (op) {
    case 0: return expf(x);
    case 1: return logf(x);
    case 2: return gdr_sigmoid(x);
    case 3: return x * gdr_sigmoid(x);
    default: return gdr_softplus(x);
  }
}

HK_KERNEL void gdr_test_ops(T* __restrict__ out, const T* __restrict__ x, i64 n, i32 op) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
    out[i] = hk::from_f32<T>(gdr_apply_op(hk::to_f32(x[i]), op));
}
