// Concatenates the no-RoPE and RoPE parts of each head along the head dimension (MLA style):
//   q[t, h, :] = [q_nope[t, h, 0:Dn], q_rope[t, h, 0:Dr]]   (Hq heads)
//   k[t, h, :] = [k_nope[t, h, 0:Dn], k_rope[t, h, 0:Dr]]   (Hk heads)
// A pure copy (bit exact). Launch: grid (num_tokens, 2), blockIdx.y = 0 for q and 1 for k;
// any block size.
#include "hkcheck.h"

constexpr int VEC = 16 / (int)sizeof(T);  // elements per 16-byte pack
template <int V> struct alignas(V * sizeof(T)) Pack { T v[V]; };

// Copies one token's [heads, Dn + Dr] output from its two sources in units of V elements
// (V divides Dn and Dr, so a unit never straddles the nope/rope boundary).
template <int V>
HK_DEVICE void concat_token(T* dst, const T* nope, const T* rope, int heads, int Dn, int Dr) {
  typedef Pack<V> P;
  const int un = Dn / V, ur = Dr / V, u = un + ur;  // units per head
  const P* pn = reinterpret_cast<const P*>(nope);
  const P* pr = reinterpret_cast<const P*>(rope);
  P* pd = reinterpret_cast<P*>(dst);
  for (long long i = threadIdx.x; i < (long long)heads * u; i += blockDim.x) {
    const long long h = i / u;
    const int j = (int)(i - h * u);
    pd[i] = j < un ? pn[h * un + j] : pr[h * ur + (j - un)];
  }
}

HK_KERNEL void fused_qk_concat(T* q, T* k, const T* q_nope, const T* q_rope, const T* k_nope,
                               const T* k_rope, int Hq, int Hk, int Dn, int Dr) {
  const long long t = blockIdx.x;
  const bool is_k = blockIdx.y == 1;
  const int heads = is_k ? Hk : Hq;
  T* dst = (is_k ? k : q) + t * heads * (long long)(Dn + Dr);
  const T* nope = (is_k ? k_nope : q_nope) + t * heads * (long long)Dn;
  const T* rope = (is_k ? k_rope : q_rope) + t * heads * (long long)Dr;

  // 16-byte units when both parts are whole units and every row start is 16-byte aligned.
  const bool vec = Dn % VEC == 0 && Dr % VEC == 0 &&
                   ((((unsigned long long)dst) | ((unsigned long long)nope) |
                     ((unsigned long long)rope)) % 16) == 0;
  if (vec)
    concat_token<VEC>(dst, nope, rope, heads, Dn, Dr);
  else
    concat_token<1>(dst, nope, rope, heads, Dn, Dr);
}
