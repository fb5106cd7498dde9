// Shared notation and helpers of the gated delta rule (GDN) kernels.
//
// Notation (per head h; everything below is per (sequence, head)):
//   state S [Dk, Dv] (f32), tokens t = 1..L of a sequence;
//   q_t, k_t [Dk], v_t [Dv], gate g_t <= 0 (log-decay), beta_t in (0, 1).
//   Optional L2 normalization (qk_l2norm = 1): q_t <- q_t / sqrt(|q_t|^2 + 1e-6), same for k_t.
// The recurrence every kernel implements, exactly:
//   a_t = exp(g_t)
//   u_t = beta_t * (v_t - a_t * S_{t-1}^T k_t)          [Dv]
//   S_t = a_t * S_{t-1} + k_t u_t^T                     [Dk, Dv]
//   o_t = scale * S_t^T q_t                             [Dv]
//
// Layouts (token-major, sequences concatenated, "varlen"):
//   cu_seqlens [N + 1] i32: sequence n holds tokens cu_seqlens[n] .. cu_seqlens[n+1]-1.
//   q, k [Ttot, H, Dk]; v, o [Ttot, H, Dv]; g, beta, gc [Ttot, H]; states [N, H, Dk, Dv].
//
// Chunked form (chunk size C, chunks are local to each sequence, the last one may be partial):
//   chunks are numbered globally in sequence order: chunk_offsets[n] = sum_{m<n} ceil(len_m / C).
//   gc_t  = sum of g over the chunk's tokens up to and including t (chunk-local cumsum)
//   A[t][s] (s < t, same chunk) = beta_t * (k_t . k_s) * exp(gc_t - gc_s); 0 elsewhere
//   Ai = (I + A)^-1 (unit lower triangular), stored like A: [Ttot, H, C], row = token, col = s - chunk start
//   w_t = sum_s Ai[t][s] beta_s exp(gc_s) k_s;  u_t = sum_s Ai[t][s] beta_s v_s
//   h_c = state at the start of chunk c [NT, H, Dk, Dv]; v_new_t = u_t - h_c^T w_t
//   h_{c+1} = exp(gc_last) h_c + sum_t exp(gc_last - gc_t) k_t v_new_t^T
//   o_t = scale * (exp(gc_t) h_c^T q_t + sum_{s<=t} exp(gc_t - gc_s) (q_t . k_s) v_new_s)
// which equals the recurrence above (v_new_t is its u_t).
#pragma once

// The chunk (sequence seq, tokens bos .. bos+len-1) that global chunk `idx` stands for, and the
// global index of that sequence's first chunk. Returns false when idx is past the last chunk.
struct GdrChunk {
  i32 seq, bos, len, first_chunk;
};

HK_DEVICE bool gdr_locate_chunk(const i32* cu_seqlens, i32 N, i32 C, i32 idx, GdrChunk& ch) {
  i32 base = 0;
  for (i32 n = 0; n < N; ++n) {
    const i32 b = cu_seqlens[n], L = cu_seqlens[n + 1] - b;
    const i32 nt = (L + C - 1) / C;
    if (idx < base + nt) {
      const i32 c = idx - base;
      ch.seq = n;
      ch.bos = b + c * C;
      ch.len = min(C, L - c * C);
      ch.first_chunk = base;
      return true;
    }
    base += nt;
  }
  return false;
}

// Index of sequence n's first chunk (chunk_offsets[n]).
HK_DEVICE i32 gdr_chunk_offset(const i32* cu_seqlens, i32 n, i32 C) {
  i32 base = 0;
  for (i32 m = 0; m < n; ++m) base += (cu_seqlens[m + 1] - cu_seqlens[m] + C - 1) / C;
  return base;
}

// softplus with the usual threshold (x > 20 returns x: log1p(exp(x)) == x there in f32).
HK_DEVICE float gdr_softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
HK_DEVICE float gdr_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// g = -exp(A_log) * softplus(a + dt_bias), beta = sigmoid(b).
HK_DEVICE float gdr_gate(float a, float A_log, float dt_bias) { return -expf(A_log) * gdr_softplus(a + dt_bias); }

// Unit lower triangular inverse in shared memory, in place: on entry M[i*C + j] holds A (only the
// strictly lower part of the first L rows is read); on exit M holds X = (I + A)^-1 on its L x L
// block and zeros elsewhere in those rows. Row by row: X[i][j] = -sum_{m=j}^{i-1} A[i][m] X[m][j]
// (X[j][j] = 1), where rows < i already hold X and row i still holds A. tmp: C floats of shared.
// Every thread of the block must call it.
HK_DEVICE void gdr_tril_inverse(float* M, float* tmp, i32 L, i32 C) {
  for (i32 i = 0; i < L; ++i) {
    for (i32 j = threadIdx.x; j < C; j += blockDim.x) {
      float x = 0.0f;
      if (j < i) {
        for (i32 m = j; m < i; ++m) x -= M[i * C + m] * M[m * C + j];
      } else if (j == i) {
        x = 1.0f;
      }
      tmp[j] = x;
    }
    __syncthreads();  // all reads of row i (as A) are done
    for (i32 j = threadIdx.x; j < C; j += blockDim.x) M[i * C + j] = tmp[j];
    __syncthreads();  // row i (as X) is visible before row i+1 reads it
  }
}

// Dot product of two rows of length D in global memory, in f32.
template <typename X, typename Y>
HK_DEVICE float gdr_dot(const X* a, const Y* b, i32 D) {
  float s = 0.0f;
  for (i32 i = 0; i < D; ++i) s += hk::to_f32(a[i]) * hk::to_f32(b[i]);
  return s;
}
