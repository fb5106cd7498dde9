// The device dialect on the CPU: included by hkcheck.h when the kernel is built by the host
// backend into a shared library. Qualifiers vanish, built-in variables and barriers go through
// hkcheck's fiber scheduler (hk_host_abi.h), __shared__ becomes per-OS-thread storage (one OS
// thread runs one block at a time, all its threads as fibers), and atomics are real atomics
// because blocks run on several OS threads at once.
#pragma once

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include <cstddef>
#include <memory>  // before __noinline__ is a macro: libstdc++ writes __attribute__((__noinline__))
#include <type_traits>
#include <utility>

#include "hk_host_abi.h"
#include "hk_host_vectors.h"  // CUDA's vector types and dim3 (in the host backend's include folder)

// NVRTC defines it, and so does the host backend: `#ifndef __CUDACC_RTC__` keeps a kernel file's
// host code (launchers, <<<...>>>) out of both.
#ifndef __CUDACC_RTC__
#define __CUDACC_RTC__ 1
#endif

#ifndef HK_HOST_WARP_SIZE
#error "hkcheck host prelude: HK_HOST_WARP_SIZE is not defined"
#endif

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static thread_local
#define __constant__ static
#define __managed__
#define __restrict__ __restrict
#define __align__(n) alignas(n)

extern "C" const struct hk_host_runtime* hk_host_rt;

#define threadIdx (hk_host_rt->current()->thread_idx)
#define blockIdx (hk_host_rt->current()->block_idx)
#define blockDim (hk_host_rt->current()->block_dim)
#define gridDim (hk_host_rt->current()->grid_dim)
#define warpSize HK_HOST_WARP_SIZE

// A macro, so that each __syncthreads of the source is a site of its own (its file and line), as
// each is a barrier instruction of its own on a GPU; the compiler may duplicate or merge calls,
// so a return address would not do.
#define HK_HOST_STR2(x) #x
#define HK_HOST_STR(x) HK_HOST_STR2(x)
inline void hk_host_syncthreads_at(const char* site) { hk_host_rt->sync_block(site); }
#define __syncthreads() hk_host_syncthreads_at(__FILE__ ":" HK_HOST_STR(__LINE__))
inline void __syncwarp(unsigned long long hk_members = ~0ull) { hk_host_rt->sync_warp(hk_members); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
[[noreturn]] inline void __trap() { __builtin_trap(); }
// What a header reached by the kernel uses that the host cannot run (an instruction of inline
// assembly, an AMD built-in): it stops the case where it runs, naming it (source_rewrite.h).
struct hk_host_unemulated_value {
  template <typename HkT> operator HkT() const { __builtin_unreachable(); }
  hk_host_unemulated_value operator[](long long) const { return *this; }  // a vector result's element
};
struct hk_host_unemulated {
  const char *what, *file;
  int line;
  template <typename... HkA> hk_host_unemulated_value operator()(const HkA&...) const {
    fprintf(stderr, "%s:%d: %s cannot run on the hkcheck host backend: mark the kernel \"gpu_only\" in its manifest\n", file, line, what);
    fflush(stderr);
    __builtin_trap();
  }
};
inline long long clock64() {  // nanoseconds: a monotonic counter, as the GPU's cycle counter is
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

template <typename HkTo, typename HkFrom> inline HkTo hk_host_bits(HkFrom v) {
  static_assert(sizeof(HkTo) == sizeof(HkFrom), "same size");
  HkTo t;
  memcpy(&t, &v, sizeof t);
  return t;
}
inline float __int_as_float(int v) { return hk_host_bits<float>(v); }
inline int __float_as_int(float v) { return hk_host_bits<int>(v); }
inline float __uint_as_float(unsigned v) { return hk_host_bits<float>(v); }
inline unsigned __float_as_uint(float v) { return hk_host_bits<unsigned>(v); }
inline double __longlong_as_double(long long v) { return hk_host_bits<double>(v); }
inline long long __double_as_longlong(double v) { return hk_host_bits<long long>(v); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
// Explicitly rounded arithmetic: the host's float arithmetic is IEEE round-to-nearest already.
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clz(unsigned v) { return v ? __builtin_clz(v) : 32; }
inline int __ffs(unsigned v) { return __builtin_ffs((int)v); }
template <typename HkT> inline HkT __ldg(const HkT* p) { return *p; }
// The cache-hint loads and stores: one memory and no caches on the CPU, so each is a plain access.
template <typename HkT> inline HkT __ldcg(const HkT* p) { return *p; }
template <typename HkT> inline HkT __ldca(const HkT* p) { return *p; }
template <typename HkT> inline HkT __ldcs(const HkT* p) { return *p; }
template <typename HkT> inline HkT __ldlu(const HkT* p) { return *p; }
template <typename HkT> inline HkT __ldcv(const HkT* p) { return *p; }
template <typename HkT> inline void __stwb(HkT* p, HkT v) { *p = v; }
template <typename HkT> inline void __stcg(HkT* p, HkT v) { *p = v; }
template <typename HkT> inline void __stcs(HkT* p, HkT v) { *p = v; }
template <typename HkT> inline void __stwt(HkT* p, HkT v) { *p = v; }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline int __float2int_rn(float x) { return (int)rintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline unsigned __float2uint_rn(float x) { return (unsigned)rintf(x); }
inline long long __float2ll_rn(float x) { return (long long)rintf(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
inline unsigned __brev(unsigned v) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, v >>= 1) r = (r << 1) | (v & 1u);
  return r;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long both = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((both >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline int __clzll(long long v) { return v ? __builtin_clzll((unsigned long long)v) : 64; }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline void __nanosleep(unsigned) {}
// CUDA and HIP give min/max for every arithmetic pair of types at global scope.
template <typename HkA, typename HkB> inline typename std::common_type<HkA, HkB>::type min(HkA a, HkB b) {
  return b < a ? (typename std::common_type<HkA, HkB>::type)b : (typename std::common_type<HkA, HkB>::type)a;
}
template <typename HkA, typename HkB> inline typename std::common_type<HkA, HkB>::type max(HkA a, HkB b) {
  return a < b ? (typename std::common_type<HkA, HkB>::type)b : (typename std::common_type<HkA, HkB>::type)a;
}

// Warp collectives: every live lane of the warp takes part, as on the GPU. Each knows where it
// was called (the defaults are the caller's file and line), so that a shuffle reading a lane that
// has returned, or a ballot whose mask names one, is reported there (hk_host_abi.h).
#define HK_HOST_CALLER const char *hk_file = __builtin_FILE(), int hk_line = __builtin_LINE()
// `members` is the collective's mask (hk_host_abi.h): 0 for every live lane.
template <typename HkT> inline HkT hk_host_exchange(HkT v, int src, const hk_host_site& at, unsigned long long members = 0) {
  static_assert(sizeof(HkT) <= 8 && std::is_trivially_copyable<HkT>::value, "shuffles move at most 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof(HkT));
  const uint64_t got = hk_host_rt->exchange(bits, src, members, &at);
  HkT r;
  memcpy(&r, &got, sizeof(HkT));
  return r;
}
// Any trivially copyable value, 8 bytes at a time, as cooperative groups' shfl moves one: every
// lane takes part in each piece, since every lane shuffles the same type.
template <typename HkT> inline HkT hk_host_exchange_any(HkT v, int src, const hk_host_site& at) {
  static_assert(std::is_trivially_copyable<HkT>::value, "shuffles move trivially copyable values");
  unsigned char bytes[sizeof(HkT)];
  memcpy(bytes, &v, sizeof(HkT));
  for (size_t off = 0; off < sizeof(HkT); off += 8) {
    uint64_t piece = 0;
    const size_t n = sizeof(HkT) - off < 8 ? sizeof(HkT) - off : 8;
    memcpy(&piece, bytes + off, n);
    piece = hk_host_rt->exchange(piece, src, 0, &at);
    memcpy(bytes + off, &piece, n);
  }
  HkT r;
  memcpy(&r, bytes, sizeof(HkT));
  return r;
}
inline int hk_host_lane() { return hk_host_rt->current()->lane; }
// The lane each shuffle reads, within segments of `width` lanes: its own where the source lies
// outside its segment (xor, down, up), as on the GPU.
inline int hk_host_src_idx(int lane, int src, int width) { return (lane & ~(width - 1)) + (src & (width - 1)); }
inline int hk_host_src_xor(int lane, int mask, int width) {
  const int src = lane ^ mask;
  return (src & ~(width - 1)) == (lane & ~(width - 1)) ? src : lane;
}
inline int hk_host_src_down(int lane, int delta, int width) {
  const int src = lane + delta;
  return (src & ~(width - 1)) == (lane & ~(width - 1)) ? src : lane;
}
inline int hk_host_src_up(int lane, int delta, int width) {
  const int src = lane - delta;
  return src >= 0 && (src & ~(width - 1)) == (lane & ~(width - 1)) ? src : lane;
}
template <typename HkT>
inline HkT __shfl_sync(unsigned long long hk_members, HkT v, int src, int width = warpSize, HK_HOST_CALLER, const char* hk_what = "__shfl_sync") {
  return hk_host_exchange(v, hk_host_src_idx(hk_host_lane(), src, width), hk_host_site{hk_what, hk_file, hk_line}, hk_members);
}
template <typename HkT>
inline HkT __shfl_xor_sync(unsigned long long hk_members, HkT v, int mask, int width = warpSize, HK_HOST_CALLER, const char* hk_what = "__shfl_xor_sync") {
  return hk_host_exchange(v, hk_host_src_xor(hk_host_lane(), mask, width), hk_host_site{hk_what, hk_file, hk_line}, hk_members);
}
template <typename HkT>
inline HkT __shfl_down_sync(unsigned long long hk_members, HkT v, int delta, int width = warpSize, HK_HOST_CALLER, const char* hk_what = "__shfl_down_sync") {
  return hk_host_exchange(v, hk_host_src_down(hk_host_lane(), delta, width), hk_host_site{hk_what, hk_file, hk_line}, hk_members);
}
template <typename HkT>
inline HkT __shfl_up_sync(unsigned long long hk_members, HkT v, int delta, int width = warpSize, HK_HOST_CALLER, const char* hk_what = "__shfl_up_sync") {
  return hk_host_exchange(v, hk_host_src_up(hk_host_lane(), delta, width), hk_host_site{hk_what, hk_file, hk_line}, hk_members);
}
inline unsigned long long hk_host_ballot(int pred, unsigned long long mask, const char* what, const char* file, int line) {
  const hk_host_site at{what, file, line};
  return hk_host_rt->ballot(pred, mask, &at);
}
inline unsigned long long __ballot_sync(unsigned long long mask, int pred, HK_HOST_CALLER) {
  return hk_host_ballot(pred, mask, "__ballot_sync", hk_file, hk_line);
}
inline unsigned long long __activemask(HK_HOST_CALLER) { return hk_host_ballot(1, 0, "__activemask", hk_file, hk_line); }
// Block-wide votes: every thread of the block arrives, as at __syncthreads. Fibers of a block
// take turns on one OS thread, so block-local statics are its shared memory.
// Not instrumented under --races: its counter is the host's stand-in for the GPU's barrier
// hardware, which every thread updates between the same two barriers.
__attribute__((no_sanitize("thread"))) inline int hk_host_block_count(int pred) {
  static thread_local int acc, result;
  const bool first = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
  __syncthreads();
  if (first) acc = 0;
  __syncthreads();
  acc += pred != 0;
  __syncthreads();
  result = acc;
  __syncthreads();  // nobody starts the next vote before every thread has read this one
  return result;
}
inline int __syncthreads_count(int pred) { return hk_host_block_count(pred); }
inline int __syncthreads_and(int pred) { return hk_host_block_count(!pred) == 0; }
inline int __syncthreads_or(int pred) { return hk_host_block_count(pred) != 0; }
inline int __any_sync(unsigned long long mask, int pred, HK_HOST_CALLER) { return hk_host_ballot(pred, mask, "__any_sync", hk_file, hk_line) != 0; }
inline int __all_sync(unsigned long long mask, int pred, HK_HOST_CALLER) { return hk_host_ballot(!pred, mask, "__all_sync", hk_file, hk_line) == 0; }

// Atomics: blocks run concurrently on several OS threads. The value's type follows the pointer's
// (atomicAdd(float_ptr, 1) adds 1.0f, as in CUDA), so it is not deduced from the value.
template <typename HkT> struct hk_host_same { typedef HkT type; };
template <typename HkT> using hk_host_value = typename hk_host_same<HkT>::type;
template <typename HkT> inline HkT atomicAdd(HkT* p, hk_host_value<HkT> v) {
  if constexpr (std::is_integral<HkT>::value) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
  } else {
    HkT old, sum;  // __atomic_load_n takes integers and pointers only
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);
    do {
      sum = old + v;
    } while (!__atomic_compare_exchange(p, &old, &sum, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return old;
  }
}
template <typename HkT> inline HkT atomicSub(HkT* p, hk_host_value<HkT> v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <typename HkT> inline HkT atomicExch(HkT* p, hk_host_value<HkT> v) {
  HkT old;
  __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
  return old;
}
template <typename HkT> inline HkT atomicCAS(HkT* p, hk_host_value<HkT> expected, hk_host_value<HkT> desired) {
  __atomic_compare_exchange(p, &expected, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;  // the old value, whether or not the swap happened
}
template <typename HkT> inline HkT atomicMax(HkT* p, hk_host_value<HkT> v) {
  HkT old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (old < v && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
template <typename HkT> inline HkT atomicMin(HkT* p, hk_host_value<HkT> v) {
  HkT old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (old > v && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
template <typename HkT> inline HkT atomicOr(HkT* p, hk_host_value<HkT> v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <typename HkT> inline HkT atomicAnd(HkT* p, hk_host_value<HkT> v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <typename HkT> inline HkT atomicXor(HkT* p, hk_host_value<HkT> v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
// CUDA's wrapping counters: old >= limit starts again at 0 (atomicInc), at limit (atomicDec).
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0 || old > limit) ? limit : old - 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicMax_block atomicMax
#define atomicCAS_block atomicCAS

// Unpacks a launch's argument array by the kernel's own signature (used by the generated
// hk_host_entry_<name> trampolines).
template <typename... HkA, size_t... HkI>
inline void hk_host_call(void (*f)(HkA...), void** args, std::index_sequence<HkI...>) {
  f(*static_cast<typename std::remove_cv<typename std::remove_reference<HkA>::type>::type*>(args[HkI])...);
}
template <typename... HkA> inline void hk_host_invoke(void (*f)(HkA...), void** args) {
  hk_host_call(f, args, std::index_sequence_for<HkA...>{});
}
template <typename... HkA> constexpr int hk_host_arity(void (*)(HkA...)) { return (int)sizeof...(HkA); }

// The kernel's parameters, against which hkcheck checks a manifest's arguments (the generated
// hk_host_params_<name>): one line per parameter, "KIND BYTES TYPE". KIND: p a pointer, f floating
// point, i a signed and u an unsigned integer (an enum as its underlying type), o anything else.
template <typename HkT, bool = std::is_enum<HkT>::value> struct hk_host_arith { typedef HkT type; };
template <typename HkT> struct hk_host_arith<HkT, true> { typedef typename std::underlying_type<HkT>::type type; };
template <typename HkT> constexpr char hk_host_param_kind() {
  typedef typename hk_host_arith<HkT>::type A;
  return std::is_pointer<A>::value ? 'p'
         : std::is_same<A, bool>::value ? 'o'
         : std::is_floating_point<A>::value ? 'f'
         : std::is_integral<A>::value ? (std::is_signed<A>::value ? 'i' : 'u')
                                      : 'o';
}
template <typename HkT> inline const char* hk_host_type_name() { return __PRETTY_FUNCTION__; }
struct hk_host_text {
  char buf[8192];
  size_t len;
  void add(const char* s, size_t n) {
    if (n > sizeof buf - 1 - len) n = sizeof buf - 1 - len;
    memcpy(buf + len, s, n);
    len += n;
    buf[len] = 0;
  }
};
template <typename HkT> inline void hk_host_param_line(hk_host_text& t) {
  typedef typename std::decay<HkT>::type T;
  char head[48];
  const int n = snprintf(head, sizeof head, "%c %zu ", hk_host_param_kind<T>(), sizeof(T));
  t.add(head, n > 0 ? (size_t)n : 0);
  // g++ spells it "... [with HkT = long int]", clang "... [HkT = long]".
  const char* pretty = hk_host_type_name<T>();
  const char* name = strstr(pretty, "HkT = ");
  name = name ? name + 6 : "?";
  const char* end = strrchr(name, ']');
  t.add(name, end ? (size_t)(end - name) : strlen(name));
  t.add("\n", 1);
}
template <typename... HkA> inline const char* hk_host_params(void (*)(HkA...)) {
  static const hk_host_text text = [] {
    hk_host_text t{};
    (void)t;
    (hk_host_param_line<HkA>(t), ...);
    return t;
  }();
  return text.buf;
}
#include "hk_host_intrinsics.h"  // the rest of nvcc's implicit names (in the host backend's include folder)
