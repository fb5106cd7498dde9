// Paged KV-cache write: copies each token's new K and V rows into the caches at its slot.
//   k, v:              [num_tokens, H, D]
//   k_cache, v_cache:  [num_blocks, block_size, H, D]   (inout: untouched slots keep their data)
//   slot_mapping:      [num_tokens] i32, slot = block * block_size + offset; a negative slot
//                      (vLLM's -1 padding) is skipped, and so is any slot >= num_slots.
// Because one slot holds H * D contiguous elements in both layouts, the cache row of a slot
// starts at slot * H * D whatever the block size, so a token is one contiguous row copy.
// Launch: grid (num_tokens, 2) with blockIdx.y = 0 for K and 1 for V; any block size.
#include "hkcheck.h"

// 16-byte unit for the vector path (a plain struct, so no vendor vector types are needed).
struct alignas(16) Chunk16 { u32 w[4]; };

HK_KERNEL void fused_kv_cache(const T* k, const T* v, T* k_cache, T* v_cache,
                              const i32* slot_mapping, int num_heads, int head_dim,
                              long long num_slots) {
  const long long token = blockIdx.x;
  const long long slot = slot_mapping[token];
  if (slot < 0 || slot >= num_slots) return;  // padding token (or invalid slot): nothing to write

  const T* src = blockIdx.y == 0 ? k : v;
  T* dst = blockIdx.y == 0 ? k_cache : v_cache;
  const long long row = (long long)num_heads * head_dim;
  src += token * row;
  dst += slot * row;

  // Copy 16 bytes at a time when both rows start 16-byte aligned and the row is a whole number
  // of chunks (true for D = 128 in every dtype); otherwise fall back to one element at a time.
  const long long row_bytes = row * (long long)sizeof(T);
  const bool vec = (row_bytes % 16 == 0) &&
                   ((((unsigned long long)src) | ((unsigned long long)dst)) % 16 == 0);
  if (vec) {
    const Chunk16* s = reinterpret_cast<const Chunk16*>(src);
    Chunk16* d = reinterpret_cast<Chunk16*>(dst);
    for (long long i = threadIdx.x; i < row_bytes / 16; i += blockDim.x) d[i] = s[i];
  } else {
    for (long long i = threadIdx.x; i < row; i += blockDim.x) dst[i] = src[i];
  }
}
