// The shared tiled-GEMM core of kernels/gemm/ (and kernels/moe_gemm/).
// INTERFACE STABLE
//
// A block computes one BM x BN tile of  C[m, n] = sum_k  a(m, k) * b(n, k)  over k in
// [k_begin, k_end), stepping through K in BK-wide slices staged in dynamic shared memory as f32,
// double-buffered (slice t+1 is loaded while slice t is multiplied; one barrier per slice).
// The products and the sum are f32; each thread keeps a TM x TN accumulator in registers.
//
// Configuration:  gemm::Cfg<BM, BN, BK, TM, TN>
//   BM, BN   tile rows (of C / A) and columns (of C / B); BM % TM == 0, BN % TN == 0
//   BK       K slice per shared-memory stage
//   TM, TN   accumulator per thread. Thread t owns rows  m0 + ty + i * (BM / TM),  i < TM, and
//            columns  n0 + tx + j * (BN / TN),  j < TN,  with tx = t % (BN / TN), ty = t / (BN / TN)
//            (strided, so column n and n + BN / 2 belong to the same thread when TN is even)
//   Cfg::THREADS = (BM / TM) * (BN / TN): the block MUST be 1-D with blockDim.x == THREADS (any
//            value works, warp size 32 or 64 alike: no warp collectives are used).
//   Cfg::SMEM_BYTES = 2 * BK * (BM + 1 + BN + 1) * 4: the dynamic shared memory the core uses,
//            from the start of the buffer given to it (HK_DYNAMIC_SHARED). Examples:
//              <128, 128, 64, 8, 8>: 132096 B (256 threads), the kernels/gemm default
//              < 64,  64, 32, 4, 4>:  33280 B (256 threads), fits 64 KiB LDS
//              < 64,  64, 64, 4, 4>:  66560 B: just over 64 KiB
//            A kernel may use the rest of the buffer, from byte SMEM_BYTES on.
//
// Hooks (any callable: lambdas or functors, called on the device):
//   load_a(m, k) -> float   element (m, k) of A, dequantized to f32 (scales included if wanted);
//                            called only for m < M and k_begin <= k < k_end
//   load_b(n, k) -> float   element (n, k) of B (the "weight" [N, K] view; a kernel with B as
//                            [K, N] just indexes it the other way); called only for n < N
//   epi(m, n, acc)          one output element; called only for m < M and n < N
// Out-of-range tile elements are staged as 0, so any M, N, K work (no multiple-of-tile rule).
//
// Functions (every thread of the block must call them, they contain __syncthreads):
//   gemm::mainloop<C>(acc, smem, m0, n0, M, N, k_begin, k_end, load_a, load_b)
//        acc: float[C::TM][C::TN], zeroed here, holds the thread's partial tile on return.
//   gemm::epilogue<C>(acc, m0, n0, M, N, epi)      calls epi for the thread's in-range elements
//   gemm::row_of<C>(m0, i), gemm::col_of<C>(n0, j) the coordinates of acc[i][j]
//   gemm::run<C>(smem, M, N, K, load_a, load_b, epi)
//        the whole K, tile (blockIdx.y, blockIdx.x): grid (ceil(N / BN), ceil(M / BM), ...);
//        blockIdx.z is left to the kernel (batch, split-K).
#pragma once
#include "hkcheck.h"

namespace gemm {

template <int BM_, int BN_, int BK_, int TM_, int TN_>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int RY = BM / TM;  // threads along M
  static constexpr int RX = BN / TN;  // threads along N
  static constexpr int THREADS = RY * RX;
  // Stages are stored k-major (As[k][m]) so the inner loop reads a row of B with consecutive
  // lanes on consecutive words; +1 makes the transposing stores conflict-free.
  static constexpr int LDA = BM + 1, LDB = BN + 1;
  static constexpr int STAGE_FLOATS = BK * (LDA + LDB);
  static constexpr int SMEM_BYTES = 2 * STAGE_FLOATS * 4;
  static_assert(BM % TM == 0 && BN % TN == 0, "tile not divisible by the thread tile");
};

template <class C> HK_DEVICE int row_of(int m0, int i) { return m0 + (int)threadIdx.x / C::RX + i * C::RY; }
template <class C> HK_DEVICE int col_of(int n0, int j) { return n0 + (int)threadIdx.x % C::RX + j * C::RX; }

// Stages the slice [k0, k0 + BK) of A rows [m0, m0 + BM) and B rows [n0, n0 + BN) into `stage`.
// k is the fastest index of the loop, so consecutive threads read consecutive k of a row.
template <class C, class LA, class LB>
HK_DEVICE void load_stage(float* stage, int m0, int n0, int M, int N, int k0, int k_end, const LA& load_a,
                          const LB& load_b) {
  float* As = stage;
  float* Bs = stage + C::BK * C::LDA;
  for (int idx = threadIdx.x; idx < C::BM * C::BK; idx += blockDim.x) {
    const int r = idx / C::BK, k = idx % C::BK;
    const int m = m0 + r, kk = k0 + k;
    As[k * C::LDA + r] = (m < M && kk < k_end) ? load_a(m, kk) : 0.0f;
  }
  for (int idx = threadIdx.x; idx < C::BN * C::BK; idx += blockDim.x) {
    const int r = idx / C::BK, k = idx % C::BK;
    const int n = n0 + r, kk = k0 + k;
    Bs[k * C::LDB + r] = (n < N && kk < k_end) ? load_b(n, kk) : 0.0f;
  }
}

// acc += As^T Bs over one stage.
template <class C>
HK_DEVICE void multiply_stage(float (&acc)[C::TM][C::TN], const float* stage) {
  const float* As = stage + (int)threadIdx.x / C::RX;
  const float* Bs = stage + C::BK * C::LDA + (int)threadIdx.x % C::RX;
  for (int k = 0; k < C::BK; ++k) {
    float a[C::TM], b[C::TN];
    for (int i = 0; i < C::TM; ++i) a[i] = As[k * C::LDA + i * C::RY];
    for (int j = 0; j < C::TN; ++j) b[j] = Bs[k * C::LDB + j * C::RX];
    for (int i = 0; i < C::TM; ++i)
      for (int j = 0; j < C::TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

template <class C, class LA, class LB>
HK_DEVICE void mainloop(float (&acc)[C::TM][C::TN], float* smem, int m0, int n0, int M, int N, int k_begin,
                        int k_end, const LA& load_a, const LB& load_b) {
  for (int i = 0; i < C::TM; ++i)
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0.0f;
  const int slices = k_end > k_begin ? (k_end - k_begin + C::BK - 1) / C::BK : 0;
  if (slices == 0) return;
  load_stage<C>(smem, m0, n0, M, N, k_begin, k_end, load_a, load_b);
  __syncthreads();
  for (int t = 0; t < slices; ++t) {
    // The other stage was last read in slice t - 1, which ended with a barrier: safe to refill.
    if (t + 1 < slices)
      load_stage<C>(smem + ((t + 1) & 1) * C::STAGE_FLOATS, m0, n0, M, N, k_begin + (t + 1) * C::BK, k_end,
                    load_a, load_b);
    multiply_stage<C>(acc, smem + (t & 1) * C::STAGE_FLOATS);
    __syncthreads();
  }
}

template <class C, class E>
HK_DEVICE void epilogue(const float (&acc)[C::TM][C::TN], int m0, int n0, int M, int N, const E& epi) {
  for (int i = 0; i < C::TM; ++i) {
    const int m = row_of<C>(m0, i);
    if (m >= M) continue;
    for (int j = 0; j < C::TN; ++j) {
      const int n = col_of<C>(n0, j);
      if (n < N) epi(m, n, acc[i][j]);
    }
  }
}

template <class C, class LA, class LB, class E>
HK_DEVICE void run(float* smem, int M, int N, int K, const LA& load_a, const LB& load_b, const E& epi) {
  const int m0 = blockIdx.y * C::BM, n0 = blockIdx.x * C::BN;
  float acc[C::TM][C::TN];
  mainloop<C>(acc, smem, m0, n0, M, N, 0, K, load_a, load_b);
  epilogue<C>(acc, m0, n0, M, N, epi);
}

// The kernels/gemm default: 132096 B of the 160000 B the manifests launch with.
using Default = Cfg<128, 128, 64, 8, 8>;

}  // namespace gemm
