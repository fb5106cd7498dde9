// Known bad: an attention backward (the math of kernels/attention_bwd/bwd_tile.h) that masks the
// causal pairs by multiplying P by 0 instead of skipping them. Fine while every lse is finite:
// exp(s - lse) * 0 is 0. A query row that sees no key at all (causal with Sq > Sk) has lse = -inf
// in a real forward pass, so exp(s - lse) is inf and inf * 0 is NaN: the row's dq, and the dk and
// dv of every key of its kv head, come out NaN. Random lse values are never -inf, so only a case
// whose lse comes from the forward pass (docs/manifest.md, "Derived tensors") shows it.
//
// kb_attn_bwd_mask_by_multiply(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale,
// causal): layouts as flash_attn_bwd (T = bf16, D = HEAD_DIM). Grid: (Hkv, B); block: 1 thread,
// which alone writes its kv head's dk, dv and its query heads' dq. Self-contained on purpose.
#include "hkcheck.h"

HK_KERNEL void kb_attn_bwd_mask_by_multiply(f32* dq, f32* dk, f32* dv, const T* q, const T* k, const T* v,
                                            const T* out, const T* dout, const f32* lse, i32 Sq, i32 Sk, i32 Hq,
                                            i32 Hkv, f32 scale, i32 causal) {
  constexpr int D = HEAD_DIM;
  const int b = blockIdx.y, hk = blockIdx.x, G = Hq / Hkv;
  const float sc = scale > 0.f ? scale : 1.f / sqrtf((float)D);
  auto qo = [&](int i, int h) { return (((long long)b * Sq + i) * Hq + h) * D; };
  auto ko = [&](int j) { return (((long long)b * Sk + j) * Hkv + hk) * D; };
  for (int j = 0; j < Sk; ++j)
    for (int d = 0; d < D; ++d) dk[ko(j) + d] = 0.f, dv[ko(j) + d] = 0.f;
  for (int h = hk * G; h < (hk + 1) * G; ++h)
    for (int i = 0; i < Sq; ++i) {
      const long long qi = qo(i, h);
      float delta = 0.f;
      for (int d = 0; d < D; ++d) delta += hk::to_f32(dout[qi + d]) * hk::to_f32(out[qi + d]);
      const int hi = causal ? i + Sk - Sq + 1 : Sk;
      const float l = lse[((long long)b * Hq + h) * Sq + i];
      for (int d = 0; d < D; ++d) dq[qi + d] = 0.f;
      for (int j = 0; j < Sk; ++j) {
        float s = 0.f, dp = 0.f;
        for (int d = 0; d < D; ++d) {
          s += hk::to_f32(q[qi + d]) * hk::to_f32(k[ko(j) + d]);
          dp += hk::to_f32(dout[qi + d]) * hk::to_f32(v[ko(j) + d]);
        }
        const float p = expf(s * sc - l) * (j < hi ? 1.f : 0.f);  // the bug: a mask by multiplication
        const float ds = p * (dp - delta);
        for (int d = 0; d < D; ++d) {
          dv[ko(j) + d] += p * hk::to_f32(dout[qi + d]);
          dk[ko(j) + d] += sc * ds * hk::to_f32(q[qi + d]);
          dq[qi + d] += sc * ds * hk::to_f32(k[ko(j) + d]);
        }
      }
    }
}
