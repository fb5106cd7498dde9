// chunk_pipeline: the whole chunked GDN forward for one chunk size C (notation: gdr_common.h),
// one block per (head, sequence) walking its chunks in order. Per chunk (tokens bos .. bos+len-1):
//   1. gc = chunk-local cumsum of g;  M = A (beta_t (k_t . k_s) exp(gc_t - gc_s), s < t)
//   2. M <- (I + A)^-1                                            (gdr_tril_inverse)
//   3. r_s = beta_s (v_s - exp(gc_s) h^T k_s);  v_new = M r      (= u - w h of recompute_w_u)
//   4. P[t][s] = exp(gc_t - gc_s) (q_t . k_s), s <= t;  o_t = scale (exp(gc_t) h^T q_t + sum_s P[t][s] v_new_s)
//   5. h <- exp(gc_last) h + sum_s exp(gc_last - gc_s) k_s v_new_s^T
// gdr_chunk_pipeline(o, ht, v_new, q, k, v, g, beta, h0, cu_seqlens, N, H, Dv, C, scale):
//   q, k [Ttot, H, DK] T; v, o [Ttot, H, Dv] T; g (raw log-decay), beta [Ttot, H] f32;
//   h0, ht [N, H, DK, Dv] f32; v_new [Ttot, H, Dv] f32 (an output, also the scratch of step 3).
// Grid: (H, N); block: Dv threads, thread j owns column j of h (DK registers, DK a define).
// Shared: (C*C + 3*C) floats: M (then P), gc, beta, one row of scratch.
#include "hkcheck.h"
#include "gdr_common.h"

struct GdrPipe {
  T* o; f32* v_new; const T* q; const T* k; const T* v; const f32* g; const f32* beta;
  i32 H, Dv, C; f32 scale;
};

// Steps 1-2: gc, beta and the inverse into shared memory.
HK_DEVICE void gdr_pipe_inverse(const GdrPipe& p, i32 bos, i32 len, i32 h, float* M, float* gcs, float* bs, float* tmp) {
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (i32 r = 0; r < len; ++r) {
      s += p.g[(i64)(bos + r) * p.H + h];
      gcs[r] = s;
      bs[r] = p.beta[(i64)(bos + r) * p.H + h];
    }
  }
  __syncthreads();
  for (i32 e = threadIdx.x; e < len * p.C; e += blockDim.x) {
    const i32 r = e / p.C, c = e % p.C;
    const i64 tr = (i64)(bos + r) * p.H + h, tc = (i64)(bos + c) * p.H + h;
    M[e] = c < r ? bs[r] * gdr_dot(p.k + tr * DK, p.k + tc * DK, DK) * expf(gcs[r] - gcs[c]) : 0.0f;
  }
  __syncthreads();
  gdr_tril_inverse(M, tmp, len, p.C);
}

// Step 3 for column j: v_new (global, this thread's column only) = M r.
HK_DEVICE void gdr_pipe_v_new(const GdrPipe& p, i32 bos, i32 len, i32 h, const float* M, const float* gcs,
                              const float* bs, const float* s) {
  const i32 j = threadIdx.x;
  for (i32 r = 0; r < len; ++r) {
    const i64 t = (i64)(bos + r) * p.H + h;
    float kh = 0.0f;
    for (i32 i = 0; i < DK; ++i) kh += hk::to_f32(p.k[t * DK + i]) * s[i];
    p.v_new[t * p.Dv + j] = bs[r] * (hk::to_f32(p.v[t * p.Dv + j]) - expf(gcs[r]) * kh);
  }
  for (i32 r = len - 1; r >= 0; --r) {  // downwards: row r reads r_s for s <= r, not yet replaced
    float acc = 0.0f;
    for (i32 c = 0; c <= r; ++c) acc += M[r * p.C + c] * p.v_new[((i64)(bos + c) * p.H + h) * p.Dv + j];
    p.v_new[((i64)(bos + r) * p.H + h) * p.Dv + j] = acc;
  }
}

// Steps 4-5 for column j; M is reused for P.
HK_DEVICE void gdr_pipe_output(const GdrPipe& p, i32 bos, i32 len, i32 h, float* M, const float* gcs, float* s) {
  __syncthreads();  // every thread is done with the inverse
  for (i32 e = threadIdx.x; e < len * len; e += blockDim.x) {
    const i32 r = e / len, c = e % len;
    const i64 tr = (i64)(bos + r) * p.H + h, tc = (i64)(bos + c) * p.H + h;
    M[r * p.C + c] = c <= r ? gdr_dot(p.q + tr * DK, p.k + tc * DK, DK) * expf(gcs[r] - gcs[c]) : 0.0f;
  }
  __syncthreads();
  const i32 j = threadIdx.x;
  for (i32 r = 0; r < len; ++r) {
    const i64 t = (i64)(bos + r) * p.H + h;
    float qh = 0.0f;
    for (i32 i = 0; i < DK; ++i) qh += hk::to_f32(p.q[t * DK + i]) * s[i];
    float acc = qh * expf(gcs[r]);
    for (i32 c = 0; c <= r; ++c) acc += M[r * p.C + c] * p.v_new[((i64)(bos + c) * p.H + h) * p.Dv + j];
    p.o[t * p.Dv + j] = hk::from_f32<T>(acc * p.scale);
  }
  const float g_last = gcs[len - 1];
  for (i32 i = 0; i < DK; ++i) s[i] *= expf(g_last);
  for (i32 r = 0; r < len; ++r) {
    const i64 t = (i64)(bos + r) * p.H + h;
    const float vd = p.v_new[t * p.Dv + j] * expf(g_last - gcs[r]);
    for (i32 i = 0; i < DK; ++i) s[i] += hk::to_f32(p.k[t * DK + i]) * vd;
  }
  __syncthreads();  // M, gcs, bs are rewritten by the next chunk
}

HK_KERNEL void gdr_chunk_pipeline(T* __restrict__ o, f32* __restrict__ ht, f32* __restrict__ v_new,
                                  const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                                  const f32* __restrict__ g, const f32* __restrict__ beta, const f32* __restrict__ h0,
                                  const i32* __restrict__ cu_seqlens, i32 N, i32 H, i32 Dv, i32 C, f32 scale) {
  HK_DYNAMIC_SHARED(float, smem);
  float* M = smem;
  float* gcs = M + C * C;
  float* bs = gcs + C;
  float* tmp = bs + C;
  const GdrPipe p{o, v_new, q, k, v, g, beta, H, Dv, C, scale};
  const i32 h = blockIdx.x, n = blockIdx.y, j = threadIdx.x;
  const i64 state = ((i64)n * H + h) * DK * Dv;
  float s[DK];
  for (i32 i = 0; i < DK; ++i) s[i] = h0[state + (i64)i * Dv + j];
  for (i32 bos = cu_seqlens[n]; bos < cu_seqlens[n + 1]; bos += C) {
    const i32 len = min(C, cu_seqlens[n + 1] - bos);
    gdr_pipe_inverse(p, bos, len, h, M, gcs, bs, tmp);
    gdr_pipe_v_new(p, bos, len, h, M, gcs, bs, s);
    gdr_pipe_output(p, bos, len, h, M, gcs, s);
  }
  for (i32 i = 0; i < DK; ++i) ht[state + (i64)i * Dv + j] = s[i];
  (void)N;
}
