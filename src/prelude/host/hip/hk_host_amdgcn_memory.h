// The CDNA memory, scheduling and math built-ins on the host backend.
// Raw buffer loads and stores go through a buffer resource (V#): a 48-bit base address, a stride
// (bits 48-61) and swizzle bits, the number of records (bytes, for the stride-0 raw form) and
// format flags. As on the GPU, each dword of an access at or past num_records reads 0 and is not
// written: a tile kernel's edge tiles rely on it. An access inside the range but past the tensor
// hkcheck allocated is reported as any other read past an input is. Swizzled and strided
// resources are not emulated: such an access stops the case with a message.
#pragma once

#include <stdint.h>

struct hk_host_buffer_rsrc {
  uint64_t base_and_stride;
  uint32_t num_records, flags;
};
typedef hk_host_buffer_rsrc __amdgpu_buffer_rsrc_t;

namespace hk_host_buffer {
inline unsigned char* base(const hk_host_buffer_rsrc& r) {
  if (r.base_and_stride >> 48) {
    fprintf(stderr, "hkcheck host backend: a buffer resource with a stride or swizzle bits is not emulated\n");
    __builtin_trap();
  }
  return reinterpret_cast<unsigned char*>(r.base_and_stride & 0xffffffffffffull);
}
// Loads `bytes` at voffset + soffset, each dword past the range reading 0.
inline void load(void* out, const hk_host_buffer_rsrc& r, uint32_t voffset, uint32_t soffset, int bytes) {
  const uint32_t at = voffset + soffset;
  unsigned char* p = base(r);
  for (int d = 0; d < bytes; d += 4) {
    const int n = bytes - d < 4 ? bytes - d : 4;
    if ((uint64_t)at + d + n <= r.num_records) memcpy((unsigned char*)out + d, p + at + d, n);
    else memset((unsigned char*)out + d, 0, n);
  }
}
inline void store(const void* in, const hk_host_buffer_rsrc& r, uint32_t voffset, uint32_t soffset, int bytes) {
  const uint32_t at = voffset + soffset;
  unsigned char* p = base(r);
  for (int d = 0; d < bytes; d += 4) {
    const int n = bytes - d < 4 ? bytes - d : 4;
    if ((uint64_t)at + d + n <= r.num_records) memcpy(p + at + d, (const unsigned char*)in + d, n);
  }
}
template <typename HkR> inline hk_host_buffer_rsrc from(const HkR& r) {
  static_assert(sizeof(HkR) == 16, "a buffer resource is 16 bytes");
  hk_host_buffer_rsrc out;
  memcpy(&out, &r, 16);
  return out;
}
template <typename HkT, typename HkR> inline HkT load_as(const HkR& r, uint32_t voffset, uint32_t soffset) {
  HkT v;
  load(&v, from(r), voffset, soffset, sizeof(HkT));
  return v;
}
template <typename HkT, typename HkR> inline void store_from(const HkT& v, const HkR& r, uint32_t voffset, uint32_t soffset) {
  store(&v, from(r), voffset, soffset, sizeof(HkT));
}
}  // namespace hk_host_buffer

typedef unsigned int hk_host_u32x2 __attribute__((vector_size(8)));
typedef unsigned int hk_host_u32x4 __attribute__((vector_size(16)));
typedef int hk_host_i32x4 __attribute__((vector_size(16)));

inline __amdgpu_buffer_rsrc_t __builtin_amdgcn_make_buffer_rsrc(const void* p, short stride, int num_records, int flags) {
  return hk_host_buffer_rsrc{(uint64_t)(uintptr_t)p | ((uint64_t)(uint16_t)stride << 48), (uint32_t)num_records, (uint32_t)flags};
}
// Defines __builtin_amdgcn_raw_buffer_load_b8, __builtin_amdgcn_raw_buffer_load_b16,
// __builtin_amdgcn_raw_buffer_load_b32, __builtin_amdgcn_raw_buffer_load_b64,
// __builtin_amdgcn_raw_buffer_load_b128 and the __builtin_amdgcn_raw_buffer_store_b* of the same
// widths (the names spelled out: the host's source check reads them from this header).
// Emulated too: __builtin_amdgcn_raw_buffer_store_b8, __builtin_amdgcn_raw_buffer_store_b16,
// __builtin_amdgcn_raw_buffer_store_b32, __builtin_amdgcn_raw_buffer_store_b64,
// __builtin_amdgcn_raw_buffer_store_b128.
#define HK_HOST_BUFFER_OPS(BITS, HkT)                                                                               \
  inline HkT __builtin_amdgcn_raw_buffer_load_b##BITS(__amdgpu_buffer_rsrc_t r, int voffset, int soffset, int) {    \
    return hk_host_buffer::load_as<HkT>(r, (uint32_t)voffset, (uint32_t)soffset);                                    \
  }                                                                                                                 \
  inline void __builtin_amdgcn_raw_buffer_store_b##BITS(HkT v, __amdgpu_buffer_rsrc_t r, int voffset, int soffset, int) { \
    hk_host_buffer::store_from(v, r, (uint32_t)voffset, (uint32_t)soffset);                                          \
  }
HK_HOST_BUFFER_OPS(8, unsigned char)
HK_HOST_BUFFER_OPS(16, unsigned short)
HK_HOST_BUFFER_OPS(32, unsigned int)
HK_HOST_BUFFER_OPS(64, hk_host_u32x2)
HK_HOST_BUFFER_OPS(128, hk_host_u32x4)
#undef HK_HOST_BUFFER_OPS

// The LLVM intrinsics that tile libraries declare under their own names with an asm label
// (`... __asm("llvm.amdgcn.raw.buffer.load.i32")`): defined here under the same symbols. The
// resource is an int vector of 4 (ext_vector_type, which only clang has).
#if defined(__clang__)
typedef int hk_host_v4i32 __attribute__((ext_vector_type(4)));
#define HK_HOST_BUFFER_INTRINSICS(BITS, HkT)                                                                         \
  inline HkT hk_host_llvm_buffer_load_##BITS(hk_host_v4i32, uint32_t, uint32_t, uint32_t) __asm("llvm.amdgcn.raw.buffer.load.i" #BITS); \
  inline HkT hk_host_llvm_buffer_load_##BITS(hk_host_v4i32 r, uint32_t voffset, uint32_t soffset, uint32_t) {       \
    return hk_host_buffer::load_as<HkT>(r, voffset, soffset);                                                        \
  }                                                                                                                  \
  inline void hk_host_llvm_buffer_store_##BITS(HkT, hk_host_v4i32, uint32_t, uint32_t, uint32_t) __asm("llvm.amdgcn.raw.buffer.store.i" #BITS); \
  inline void hk_host_llvm_buffer_store_##BITS(HkT v, hk_host_v4i32 r, uint32_t voffset, uint32_t soffset, uint32_t) { \
    hk_host_buffer::store_from(v, r, voffset, soffset);                                                              \
  }
HK_HOST_BUFFER_INTRINSICS(8, uint8_t)
HK_HOST_BUFFER_INTRINSICS(16, uint16_t)
HK_HOST_BUFFER_INTRINSICS(32, uint32_t)
HK_HOST_BUFFER_INTRINSICS(64, uint64_t)
HK_HOST_BUFFER_INTRINSICS(128, __uint128_t)
#undef HK_HOST_BUFFER_INTRINSICS
#endif

// Scheduling and wait built-ins order nothing a CPU can observe: a fiber's memory operations are
// complete when they return. s_barrier is a block barrier (hip_runtime.h).
inline void __builtin_amdgcn_s_waitcnt(int) {}
inline void __builtin_amdgcn_s_setprio(int) {}
inline void __builtin_amdgcn_sched_barrier(int) {}
inline void __builtin_amdgcn_sched_group_barrier(int, int, int) {}
inline void __builtin_amdgcn_iglp_opt(int) {}
// The transcendental approximations, exactly: the checks' tolerance covers the GPU's ulp or two.
inline float __builtin_amdgcn_exp2f(float x) { return exp2f(x); }
inline float __builtin_amdgcn_logf(float x) { return log2f(x); }
inline float __builtin_amdgcn_rcpf(float x) { return 1.0f / x; }
inline float __builtin_amdgcn_rsqf(float x) { return 1.0f / sqrtf(x); }
inline float __builtin_amdgcn_sqrtf(float x) { return sqrtf(x); }
