// The CDNA matrix-core built-ins on the host backend: each MFMA is a collective of the 64 lanes
// of a wave, as on the GPU. Every lane puts its A and B registers in its wave's stage, the wave
// meets (__syncwarp), each lane computes the D registers it owns from the documented lane
// layouts, and the wave meets again before the stage is reused. Operands are read by their bytes,
// so any vector spelling of them (ext_vector_type or vector_size, of short, __bf16 or __fp16)
// gives the same answer.
//
// Layouts (M x N x K, A row-major M x K, B K x N; `per` = A/B values per lane, K / (64 / M)):
//   A(i, k) is value k % per of lane i + M * (k / per); B(k, j) is value k % per of lane j + N * (k / per);
//   32x32: D register r of lane l is D(8 * (r / 4) + 4 * (l / 32) + r % 4, l % 32);
//   16x16: D register r of lane l is D(4 * (l / 16) + r, l % 16).
// Products are summed in double and added to C once, in float: within a rounding of the GPU.
// The broadcast controls (cbsz, abid, blgp) must be 0, as the tile libraries pass them.
#pragma once

#include "hk_host_fp8.h"

namespace hk_host_mfma {

enum element { bf16, f16, fp8_ocp, fp8_fnuz };

inline float value(const unsigned char* p, element e) {
  unsigned short h;
  switch (e) {
    case bf16: memcpy(&h, p, 2); return hk_host_half::bf16_bits_to_f32(h);
    case f16: memcpy(&h, p, 2); return hk_host_half::f16_bits_to_f32(h);
    case fp8_ocp: return hk_host_fp8::decode(*p, hk_host_fp8::e4m3);
    default: return hk_host_fp8::decode(*p, hk_host_fp8::e4m3_fnuz);
  }
}

// One wave's operands: up to 16 bytes of A and of B per lane (8 bf16/f16 or 16 fp8 values).
struct stage {
  unsigned char a[64][16], b[64][16];
};
inline stage& stage_of_this_wave() {
  static thread_local stage waves[1024 / 64];  // block-local: a block's fibers share an OS thread
  return waves[hk_host_rt->current()->warp];
}

// Not instrumented under --races: the stage is the host's stand-in for the lanes' registers.
template <typename HkV, typename HkC>
__attribute__((no_sanitize("thread"))) HkC multiply(int m, int k, element e, const HkV& a, const HkV& b, const HkC& c, int cbsz,
                                                    int abid, int blgp) {
  static_assert(sizeof(HkV) == 0 || HK_HOST_WARP_SIZE == 64, "MFMA instructions need a 64-lane wave: run under --host-profile mi325x or mi355x");
  if (cbsz || abid || blgp) {
    fprintf(stderr, "hkcheck host backend: an MFMA with cbsz/abid/blgp other than 0 is not emulated\n");
    __builtin_trap();
  }
  const int bytes = e == bf16 || e == f16 ? 2 : 1, per = k / (64 / m), lane = hk_host_lane();
  static_assert(sizeof(HkV) <= 16, "MFMA operands of up to 16 bytes per lane");
  stage& s = stage_of_this_wave();
  memcpy(s.a[lane], &a, sizeof(HkV));
  memcpy(s.b[lane], &b, sizeof(HkV));
  __syncwarp();
  const int regs = sizeof(HkC) / sizeof(float);
  float d[16];
  memcpy(d, &c, sizeof(HkC));
  for (int r = 0; r < regs; ++r) {
    const int i = m == 32 ? 8 * (r / 4) + 4 * (lane / 32) + r % 4 : 4 * (lane / 16) + r, j = lane % m;
    double sum = 0;
    for (int kk = 0; kk < k; ++kk)
      sum += (double)value(&s.a[i + m * (kk / per)][bytes * (kk % per)], e) * value(&s.b[j + m * (kk / per)][bytes * (kk % per)], e);
    d[r] = (float)(d[r] + sum);
  }
  __syncwarp();
  HkC out;
  memcpy(&out, d, sizeof(HkC));
  return out;
}

}  // namespace hk_host_mfma

#define HK_HOST_MFMA(NAME, M, K, ELEMENT)                                                               \
  template <typename HkV, typename HkC>                                                                 \
  inline HkC NAME(HkV a, HkV b, HkC c, int cbsz, int abid, int blgp) {                                  \
    return hk_host_mfma::multiply(M, K, hk_host_mfma::ELEMENT, a, b, c, cbsz, abid, blgp);             \
  }
// An instruction the other CDNA generation lacks: a compile error where a call to it is emitted,
// as hipRTC refuses it where it generates code for one; a library's unused inline function that
// names it is no error, there as here.
#define HK_HOST_MFMA_REFUSED(NAME, WHY) __attribute__((error(WHY))) hk_host_unemulated_value NAME(...);

// CDNA3 and CDNA4 (gfx942 and gfx950) both have these.
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_32x32x8bf16_1k, 32, 8, bf16)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_16x16x16bf16_1k, 16, 16, bf16)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_32x32x8f16, 32, 8, f16)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_16x16x16f16, 16, 16, f16)
#if defined(__gfx950__)
// gfx950 reads fp8 as OCP e4m3, and has the doubled-K 16-bit forms.
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, 32, 16, fp8_ocp)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8, 16, 32, fp8_ocp)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_bf16, 32, 16, bf16)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_bf16, 16, 32, bf16)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_f16, 32, 16, f16)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_f16, 16, 32, f16)
#else
// gfx942 reads fp8 as e4m3 fnuz.
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, 32, 16, fp8_fnuz)
HK_HOST_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8, 16, 32, fp8_fnuz)
#define HK_HOST_GFX950_ONLY(NAME) \
  HK_HOST_MFMA_REFUSED(NAME, #NAME " is a gfx950 (CDNA4) instruction: hipRTC refuses it for gfx942; run under --host-profile mi355x")
HK_HOST_GFX950_ONLY(__builtin_amdgcn_mfma_f32_32x32x16_bf16)
HK_HOST_GFX950_ONLY(__builtin_amdgcn_mfma_f32_16x16x32_bf16)
HK_HOST_GFX950_ONLY(__builtin_amdgcn_mfma_f32_32x32x16_f16)
HK_HOST_GFX950_ONLY(__builtin_amdgcn_mfma_f32_16x16x32_f16)
#undef HK_HOST_GFX950_ONLY
#endif
