// <hip/hip_runtime.h> on the host backend: HIP's device dialect over the host one (hk_host.h is
// included before every kernel). What AMD's headers add to CUDA's: warp functions without a
// mask, 64-bit ballots, the few AMD built-ins simple enough to emulate exactly, HIP's
// spellings of dynamic shared memory and of the 16-bit types. Host API calls are not available;
// other __builtin_amdgcn_* calls are refused, with a message, when the source is read.
#pragma once

#include "hk_host_half.h"
#include "hip/hk_host_amdgcn_matrix.h"
#include "hip/hk_host_amdgcn_memory.h"

// hipRTC defines it, and so does the host backend: `#ifndef __HIPCC_RTC__` keeps a kernel file's
// host code (hipLaunchKernelGGL, hipMalloc) out of both.
#ifndef __HIPCC_RTC__
#define __HIPCC_RTC__ 1
#endif
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif

// A width beyond the warp is undefined on a GPU of that warp size: it is clamped to the warp,
// so a kernel that assumes 64 lanes under 32 reads its own value (and gets the wrong answer a
// GPU would give) instead of a lane that does not exist.
inline int hk_host_shfl_width(int width) { return width < warpSize ? width : warpSize; }
// HIP's collectives take the lanes that are live (no mask): a ballot is never reported for lanes
// that returned, a shuffle reading one is (its value is undefined on a GPU too).
template <typename HkT> inline HkT __shfl(HkT v, int src, int width = warpSize, HK_HOST_CALLER) {
  return __shfl_sync(~0ull, v, src, hk_host_shfl_width(width), hk_file, hk_line, "__shfl");
}
template <typename HkT> inline HkT __shfl_xor(HkT v, int lane_mask, int width = warpSize, HK_HOST_CALLER) {
  return __shfl_xor_sync(~0ull, v, lane_mask, hk_host_shfl_width(width), hk_file, hk_line, "__shfl_xor");
}
template <typename HkT> inline HkT __shfl_down(HkT v, unsigned int delta, int width = warpSize, HK_HOST_CALLER) {
  return __shfl_down_sync(~0ull, v, (int)delta, hk_host_shfl_width(width), hk_file, hk_line, "__shfl_down");
}
template <typename HkT> inline HkT __shfl_up(HkT v, unsigned int delta, int width = warpSize, HK_HOST_CALLER) {
  return __shfl_up_sync(~0ull, v, (int)delta, hk_host_shfl_width(width), hk_file, hk_line, "__shfl_up");
}
inline unsigned long long __ballot(int pred, HK_HOST_CALLER) { return hk_host_ballot(pred, 0, "__ballot", hk_file, hk_line); }
inline unsigned long long __ballot64(int pred, HK_HOST_CALLER) { return hk_host_ballot(pred, 0, "__ballot64", hk_file, hk_line); }
inline int __any(int pred, HK_HOST_CALLER) { return hk_host_ballot(pred, 0, "__any", hk_file, hk_line) != 0; }
inline int __all(int pred, HK_HOST_CALLER) { return hk_host_ballot(!pred, 0, "__all", hk_file, hk_line) == 0; }
inline unsigned int __lane_id() { return (unsigned)hk_host_lane(); }

// The AMD built-ins that say something a CPU can say exactly.
template <typename HkT> inline HkT __builtin_amdgcn_readfirstlane(HkT v, HK_HOST_CALLER) {
  const unsigned long long active = hk_host_ballot(1, 0, "__builtin_amdgcn_readfirstlane", hk_file, hk_line);
  return hk_host_exchange(v, __builtin_ctzll(active), hk_host_site{"__builtin_amdgcn_readfirstlane", hk_file, hk_line});
}
inline int __builtin_amdgcn_ds_bpermute(int byte_address, int v, HK_HOST_CALLER) {
  return hk_host_exchange(v, (byte_address >> 2) & (warpSize - 1), hk_host_site{"__builtin_amdgcn_ds_bpermute", hk_file, hk_line});
}
// Lanes below this one whose bit is set: mbcnt_lo over mask bits 0-31, mbcnt_hi over 32-63.
inline unsigned __builtin_amdgcn_mbcnt_lo(unsigned mask, unsigned base) {
  const int lane = hk_host_lane();
  const unsigned below = lane >= 32 ? ~0u : (1u << lane) - 1u;
  return base + (unsigned)__builtin_popcount(mask & below);
}
inline unsigned __builtin_amdgcn_mbcnt_hi(unsigned mask, unsigned base) {
  const int lane = hk_host_lane();
  const unsigned below = lane < 32 ? 0u : (lane >= 64 ? ~0u : (1u << (lane - 32)) - 1u);
  return base + (unsigned)__builtin_popcount(mask & below);
}
inline void __builtin_amdgcn_wave_barrier() { __syncwarp(); }
inline void __builtin_amdgcn_fence(int, const char*) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#define __builtin_amdgcn_s_barrier() hk_host_syncthreads_at(__FILE__ ":" HK_HOST_STR(__LINE__))
inline void __builtin_amdgcn_s_sleep(int) {}
inline unsigned __builtin_amdgcn_workitem_id_x() { return threadIdx.x; }
inline unsigned __builtin_amdgcn_workitem_id_y() { return threadIdx.y; }
inline unsigned __builtin_amdgcn_workitem_id_z() { return threadIdx.z; }
inline unsigned __builtin_amdgcn_workgroup_id_x() { return blockIdx.x; }
inline unsigned __builtin_amdgcn_workgroup_id_y() { return blockIdx.y; }
inline unsigned __builtin_amdgcn_workgroup_id_z() { return blockIdx.z; }

// HIP spells its vector types as one template: float2 is HIP_vector_type<float, 2>.
template <typename HkT, unsigned HkN> struct hk_host_hip_vector;
#define HK_HOST_HIP_VECTOR(HkT, HkV) \
  template <> struct hk_host_hip_vector<HkT, 1> { typedef HkV##1 type; }; \
  template <> struct hk_host_hip_vector<HkT, 2> { typedef HkV##2 type; }; \
  template <> struct hk_host_hip_vector<HkT, 3> { typedef HkV##3 type; }; \
  template <> struct hk_host_hip_vector<HkT, 4> { typedef HkV##4 type; };
HK_HOST_HIP_VECTOR(signed char, char)
HK_HOST_HIP_VECTOR(unsigned char, uchar)
HK_HOST_HIP_VECTOR(short, short)
HK_HOST_HIP_VECTOR(unsigned short, ushort)
HK_HOST_HIP_VECTOR(int, int)
HK_HOST_HIP_VECTOR(unsigned int, uint)
HK_HOST_HIP_VECTOR(float, float)
HK_HOST_HIP_VECTOR(double, double)
#undef HK_HOST_HIP_VECTOR
template <typename HkT, unsigned HkN> using HIP_vector_type = typename hk_host_hip_vector<HkT, HkN>::type;

// The runtime's types that device code and kernel argument structs name (a `hipStream_t stream`
// member of a tile library's globals); its functions are host code, not available here.
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2 };
inline const char* hipGetErrorString(hipError_t e) { return e == hipSuccess ? "hipSuccess" : "hipError"; }

// HIP's old spellings of the built-in indices, which older samples still use.
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

// HIP declares dynamic shared memory with a macro (inside a kernel).
#define HIP_DYNAMIC_SHARED(type, var) type* const var = reinterpret_cast<type*>(hk_host_rt->current()->dynamic_shared);
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

// HIP's names of the 16-bit types: ROCm 6's __hip_bfloat16 and the same values as CUDA's.
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
// ROCm 5's hip_bfloat16: a struct with the bits in `data`, round to nearest even from float.
struct hip_bfloat16 {
  unsigned short data;
  hip_bfloat16() = default;
  hip_bfloat16(float f) : data(hk_host_half::f32_to_bf16_bits(f)) {}
  operator float() const { return hk_host_half::bf16_bits_to_f32(data); }
};
inline hip_bfloat16 operator+(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) + float(b)); }
inline hip_bfloat16 operator-(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) - float(b)); }
inline hip_bfloat16 operator*(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) * float(b)); }
inline hip_bfloat16 operator/(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) / float(b)); }
