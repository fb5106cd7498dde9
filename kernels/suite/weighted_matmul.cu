// Attention's second product: softmax weights times values, one block per output row.
//
//   weighted_matmul(out, w, v, seq_q, seq_k, D):
//     out[b, h, i, :] = sum_j w[b, h, i, j] * v[b, h, j, :]
//
// Layouts (f32, row-major): w [batch, heads, seq_q, seq_k] (softmax weights: rows sum to ~1),
// v [batch, heads, seq_k, D], out [batch, heads, seq_q, D]; seq_q may differ from seq_k.
// Grid (seq_q, heads, batch); block BLOCK threads (32 in the suite). For each output dim d the
// threads split j (thread t takes j = t, t + BLOCK, ...), each sums its products in f32, and a
// shared-memory tree (suite_reduce.h: any warp size, 32 threads being half an AMD wavefront)
// adds the BLOCK partial sums; thread 0 writes out[d]. Any seq_q, seq_k, D >= 1.
#include "hkcheck.h"
#include "suite_reduce.h"

#ifndef BLOCK
#define BLOCK 32
#endif

HK_KERNEL void weighted_matmul(f32* __restrict__ out, const f32* __restrict__ w, const f32* __restrict__ v,
                               i32 seq_q, i32 seq_k, i32 D) {
  __shared__ f32 s_partial[BLOCK];
  const int t = (int)threadIdx.x, nt = (int)blockDim.x;
  const i64 bh = (i64)blockIdx.z * gridDim.y + blockIdx.y;
  const i64 row = bh * seq_q + blockIdx.x;
  const f32* wr = w + row * seq_k;
  const f32* vb = v + bh * seq_k * D;
  f32* orow = out + row * D;

  for (int d = 0; d < D; ++d) {  // uniform loop: every thread reaches every barrier
    float part = 0.f;
    for (int j = t; j < seq_k; j += nt) part += wr[j] * vb[(i64)j * D + d];
    const float total = suite::block_sum(part, s_partial);
    if (t == 0) orow[d] = total;
  }
}
