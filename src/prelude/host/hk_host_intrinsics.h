// The rest of what a .cu file sees under nvcc with no #include (crt/host_defines.h,
// device_functions.h, sm_*_intrinsics.h, math_functions.h), on the CPU: each as CUDA documents
// it. Included at the end of hk_host.h, after the warp collectives it builds on.
// tests/nvcc_implicit_names_test.cpp runs each of them here and compiles it under NVRTC.
#pragma once

#define __builtin_align__(n) alignas(n)
#define __grid_constant__
#define __cluster_dims__(...)
#define __maxnreg__(n)

// CUDA's macros for a device compile of the target the profile stands for (host_compiler.cpp
// gives HK_HOST_CUDA_ARCH for an sm_ profile); defined here, after the system headers, which
// read __CUDACC__ to leave out __float128.
#ifdef HK_HOST_CUDA_ARCH
#define __CUDACC__ 1
#define __CUDA_ARCH__ HK_HOST_CUDA_ARCH
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#endif

inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Integer intrinsics.
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((both << (shift & 31)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(both >> (shift & 31));
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) { return shift >= 32 ? hi : __funnelshift_l(lo, hi, shift); }
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) { return shift >= 32 ? hi : __funnelshift_r(lo, hi, shift); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
inline unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? (long long)a - b : (long long)b - a); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

// Dot products of packed bytes and halves (sm_61 on).
inline int hk_host_byte(unsigned v, int i, bool is_signed) { return is_signed ? (int)(signed char)(v >> (8 * i)) : (int)((v >> (8 * i)) & 0xff); }
inline int hk_host_half_word(unsigned v, int i, bool is_signed) { return is_signed ? (int)(short)(v >> (16 * i)) : (int)((v >> (16 * i)) & 0xffff); }
inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += hk_host_byte((unsigned)a, i, true) * hk_host_byte((unsigned)b, i, true);
  return c;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 4; ++i) c += (unsigned)(hk_host_byte(a, i, false) * hk_host_byte(b, i, false));
  return c;
}
inline int __dp2a_lo(int a, int b, int c) {
  for (int i = 0; i < 2; ++i) c += hk_host_half_word((unsigned)a, i, true) * hk_host_byte((unsigned)b, i, true);
  return c;
}
inline int __dp2a_hi(int a, int b, int c) {
  for (int i = 0; i < 2; ++i) c += hk_host_half_word((unsigned)a, i, true) * hk_host_byte((unsigned)b, i + 2, true);
  return c;
}

// SIMD within a word: each byte (4) or half (2) on its own, wrapping.
template <int HkLanes, typename HkOp> inline unsigned hk_host_simd(unsigned a, unsigned b, HkOp op) {
  const int bits = 32 / HkLanes;
  const unsigned mask = (1u << bits) - 1u;
  unsigned r = 0;
  for (int i = 0; i < HkLanes; ++i) r |= (op((a >> (bits * i)) & mask, (b >> (bits * i)) & mask) & mask) << (bits * i);
  return r;
}
inline unsigned __vadd2(unsigned a, unsigned b) { return hk_host_simd<2>(a, b, [](unsigned x, unsigned y) { return x + y; }); }
inline unsigned __vadd4(unsigned a, unsigned b) { return hk_host_simd<4>(a, b, [](unsigned x, unsigned y) { return x + y; }); }
inline unsigned __vsub2(unsigned a, unsigned b) { return hk_host_simd<2>(a, b, [](unsigned x, unsigned y) { return x - y; }); }
inline unsigned __vsub4(unsigned a, unsigned b) { return hk_host_simd<4>(a, b, [](unsigned x, unsigned y) { return x - y; }); }
inline unsigned __vabsdiffu2(unsigned a, unsigned b) { return hk_host_simd<2>(a, b, [](unsigned x, unsigned y) { return x > y ? x - y : y - x; }); }
inline unsigned __vabsdiffu4(unsigned a, unsigned b) { return hk_host_simd<4>(a, b, [](unsigned x, unsigned y) { return x > y ? x - y : y - x; }); }
inline unsigned __vmaxu4(unsigned a, unsigned b) { return hk_host_simd<4>(a, b, [](unsigned x, unsigned y) { return x > y ? x : y; }); }
inline unsigned __vminu4(unsigned a, unsigned b) { return hk_host_simd<4>(a, b, [](unsigned x, unsigned y) { return x < y ? x : y; }); }

// Conversions in each rounding: floor, ceil and trunc are exact (a rounding mode set with
// fesetround does not reach code g++ compiled without -frounding-math).
enum hk_host_rounding { hk_rn, hk_rz, hk_rd, hk_ru };
template <typename HkF> inline HkF hk_host_round(HkF x, hk_host_rounding m) {
  return m == hk_rz ? trunc(x) : m == hk_rd ? floor(x) : m == hk_ru ? ceil(x) : rint(x);
}
#define HK_HOST_CONVERT(HkFrom, HkName, HkTo)                                                                                        \
  inline HkTo __##HkName##_rn(HkFrom x) { return (HkTo)hk_host_round(x, hk_rn); }                                                   \
  inline HkTo __##HkName##_rz(HkFrom x) { return (HkTo)hk_host_round(x, hk_rz); }                                                   \
  inline HkTo __##HkName##_rd(HkFrom x) { return (HkTo)hk_host_round(x, hk_rd); }                                                   \
  inline HkTo __##HkName##_ru(HkFrom x) { return (HkTo)hk_host_round(x, hk_ru); }
HK_HOST_CONVERT(double, double2int, int)
HK_HOST_CONVERT(double, double2uint, unsigned)
HK_HOST_CONVERT(double, double2ll, long long)
HK_HOST_CONVERT(double, double2ull, unsigned long long)
HK_HOST_CONVERT(float, float2ull, unsigned long long)
#undef HK_HOST_CONVERT
// hk_host.h has the _rn (and float2int's _rz) of these.
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline unsigned __float2uint_rz(float x) { return (unsigned)truncf(x); }
inline unsigned __float2uint_rd(float x) { return (unsigned)floorf(x); }
inline unsigned __float2uint_ru(float x) { return (unsigned)ceilf(x); }
inline long long __float2ll_rz(float x) { return (long long)truncf(x); }
inline long long __float2ll_rd(float x) { return (long long)floorf(x); }
inline long long __float2ll_ru(float x) { return (long long)ceilf(x); }
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned x) { return x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline float __ull2float_rn(unsigned long long x) { return (float)x; }
inline double __ll2double_rn(long long x) { return (double)x; }
inline float __double2float_rn(double x) { return (float)x; }
inline double __hiloint2double(int hi, int lo) {
  return hk_host_bits<double>((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
}
inline int __double2hiint(double x) { return (int)(hk_host_bits<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)(unsigned)hk_host_bits<unsigned long long>(x); }

// Arithmetic in each rounding: the nearest result and the sign of what it left out (the exact
// error of a sum or product, the remainder of a quotient) say which neighbour the mode takes.
template <typename HkT> inline HkT hk_host_directed(HkT nearest, int left_out, hk_host_rounding m) {
  const bool up = m == hk_ru ? left_out > 0 : m == hk_rz ? left_out > 0 && nearest < 0 : false;
  const bool down = m == hk_rd ? left_out < 0 : m == hk_rz ? left_out < 0 && nearest > 0 : false;
  return up ? nextafter(nearest, (HkT)INFINITY) : down ? nextafter(nearest, -(HkT)INFINITY) : nearest;
}
inline int hk_host_sign(double v) { return (v > 0) - (v < 0); }
// float: the double result is exact for a sum of two floats close in size and for a product; for
// others the double's own error decides when it rounds to the float itself.
inline int hk_host_left_out(double exact_or_near, float nearest, double error) {
  return exact_or_near != nearest ? hk_host_sign(exact_or_near - nearest) : hk_host_sign(error);
}
inline double hk_host_sum_error(double a, double b, double s) {  // TwoSum: a + b == s + error exactly
  const double bb = s - a;
  return (a - (s - bb)) + (b - bb);
}
inline float hk_host_fadd(float a, float b, hk_host_rounding m) {
  const double s = (double)a + b;
  const float f = (float)s;
  return hk_host_directed(f, hk_host_left_out(s, f, hk_host_sum_error(a, b, s)), m);
}
inline float hk_host_fmul(float a, float b, hk_host_rounding m) {
  const double p = (double)a * b;  // exact: 24 + 24 bits
  const float f = (float)p;
  return hk_host_directed(f, hk_host_sign(p - f), m);
}
inline float hk_host_fdiv(float a, float b, hk_host_rounding m) {
  const float f = (float)((double)a / b);
  return hk_host_directed(f, hk_host_sign(fma(-(double)f, (double)b, (double)a)) * hk_host_sign(b), m);
}
inline double hk_host_dadd(double a, double b, hk_host_rounding m) {
  const double s = a + b;
  return hk_host_directed(s, hk_host_sign(hk_host_sum_error(a, b, s)), m);
}
inline double hk_host_dmul(double a, double b, hk_host_rounding m) {
  const double p = a * b;
  return hk_host_directed(p, hk_host_sign(fma(a, b, -p)), m);
}
inline double hk_host_ddiv(double a, double b, hk_host_rounding m) {
  const double q = a / b;
  return hk_host_directed(q, hk_host_sign(fma(-q, b, a)) * hk_host_sign(b), m);
}
#define HK_HOST_MODES(HkT, HkOp, HkImpl, HkNeg)                                                                                       \
  inline HkT HkOp##_rz(HkT a, HkT b) { return HkImpl(a, HkNeg b, hk_rz); }                                                         \
  inline HkT HkOp##_rd(HkT a, HkT b) { return HkImpl(a, HkNeg b, hk_rd); }                                                         \
  inline HkT HkOp##_ru(HkT a, HkT b) { return HkImpl(a, HkNeg b, hk_ru); }
HK_HOST_MODES(float, __fadd, hk_host_fadd, +)
HK_HOST_MODES(float, __fsub, hk_host_fadd, -)
HK_HOST_MODES(float, __fmul, hk_host_fmul, +)
HK_HOST_MODES(float, __fdiv, hk_host_fdiv, +)
HK_HOST_MODES(double, __dadd, hk_host_dadd, +)
HK_HOST_MODES(double, __dsub, hk_host_dadd, -)
HK_HOST_MODES(double, __dmul, hk_host_dmul, +)
HK_HOST_MODES(double, __ddiv, hk_host_ddiv, +)
#undef HK_HOST_MODES
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double a) { return 1.0 / a; }
inline double __dsqrt_rn(double a) { return sqrt(a); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }

// Math functions of CUDA's that the C library lacks.
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x), *c = cosf(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
// C23 gives sinpi and cospi; glibc has them from 2.41.
#if !(defined(__GLIBC__) && __GLIBC_PREREQ(2, 41))
inline float sinpif(float x) { return (float)sin(M_PI * (double)x); }
inline float cospif(float x) { return (float)cos(M_PI * (double)x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
#endif
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x), *c = cospif(x); }
inline double normcdf(double x) { return 0.5 * erfc(-x / M_SQRT2); }
inline float normcdff(float x) { return (float)normcdf(x); }
// The inverse of erf by Newton's method from a closed-form start (Winitzki's approximation).
inline double erfinv(double y) {
  if (y <= -1.0) return y == -1.0 ? -HUGE_VAL : NAN;
  if (y >= 1.0) return y == 1.0 ? HUGE_VAL : NAN;
  const double a = 0.147, l = log(1.0 - y * y), t = 2.0 / (M_PI * a) + l / 2.0;
  double x = copysign(sqrt(sqrt(t * t - l / a) - t), y);
  for (int i = 0; i < 4; ++i) x -= (erf(x) - y) / (2.0 / sqrt(M_PI) * exp(-x * x));
  return x;
}
inline float erfinvf(float y) { return (float)erfinv(y); }
inline double erfcinv(double y) { return erfinv(1.0 - y); }
inline float erfcinvf(float y) { return (float)erfcinv(y); }
inline double normcdfinv(double p) { return -M_SQRT2 * erfcinv(2.0 * p); }
inline float normcdfinvf(float p) { return (float)normcdfinv(p); }
inline float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }

// Warp matches and reductions (sm_70, sm_80): every lane of the mask reads every other's value.
template <typename HkT> inline unsigned long long hk_host_match(unsigned long long mask, HkT v, int* all, const char* what, const char* file, int line) {
  const hk_host_site at{what, file, line};
  unsigned long long same = 0;
  bool everyone = true;
  for (int src = 0; src < warpSize; ++src) {
    const HkT other = hk_host_exchange(v, src, at, mask);
    if (!(mask >> src & 1ull)) continue;
    if (memcmp(&other, &v, sizeof v) == 0) same |= 1ull << src;
    else everyone = false;
  }
  if (all) *all = everyone;
  return everyone || !all ? same : 0;
}
template <typename HkT> inline unsigned long long __match_any_sync(unsigned long long mask, HkT v, HK_HOST_CALLER) {
  return hk_host_match(mask, v, nullptr, "__match_any_sync", hk_file, hk_line);
}
template <typename HkT> inline unsigned long long __match_all_sync(unsigned long long mask, HkT v, int* pred, HK_HOST_CALLER) {
  return hk_host_match(mask, v, pred, "__match_all_sync", hk_file, hk_line);
}
template <typename HkT, typename HkOp> inline HkT hk_host_reduce(unsigned long long mask, HkT v, HkOp op, const char* what, const char* file, int line) {
  const hk_host_site at{what, file, line};
  bool first = true;
  HkT acc = v;
  for (int src = 0; src < warpSize; ++src) {
    const HkT other = hk_host_exchange(v, src, at, mask);
    if (!(mask >> src & 1ull)) continue;
    acc = first ? other : op(acc, other);
    first = false;
  }
  return acc;
}
#define HK_HOST_REDUCE(HkName, HkT, HkExpr)                                                                                           \
  inline HkT HkName(unsigned long long mask, HkT v, HK_HOST_CALLER) {                                                                \
    return hk_host_reduce(mask, v, [](HkT a, HkT b) { return HkExpr; }, #HkName, hk_file, hk_line);                                  \
  }
HK_HOST_REDUCE(__reduce_add_sync, unsigned, a + b)
HK_HOST_REDUCE(__reduce_add_sync, int, a + b)
HK_HOST_REDUCE(__reduce_min_sync, unsigned, a < b ? a : b)
HK_HOST_REDUCE(__reduce_min_sync, int, a < b ? a : b)
HK_HOST_REDUCE(__reduce_max_sync, unsigned, a < b ? b : a)
HK_HOST_REDUCE(__reduce_max_sync, int, a < b ? b : a)
HK_HOST_REDUCE(__reduce_and_sync, unsigned, a & b)
HK_HOST_REDUCE(__reduce_or_sync, unsigned, a | b)
HK_HOST_REDUCE(__reduce_xor_sync, unsigned, a ^ b)
#undef HK_HOST_REDUCE

// Address spaces: one memory on the CPU. A generic address is its own shared or global one.
inline size_t __cvta_generic_to_shared(const void* p) { return (size_t)p; }
inline size_t __cvta_generic_to_global(const void* p) { return (size_t)p; }
inline void* __cvta_shared_to_generic(size_t a) { return (void*)a; }
inline void* __cvta_global_to_generic(size_t a) { return (void*)a; }
// Which space a pointer is in, the CPU cannot tell: a kernel that asks is named where it asks.
template <typename HkT> struct hk_host_space_query_refused : std::false_type {};
#define HK_HOST_SPACE_QUERY(HkName)                                                                                                   \
  template <typename HkT> inline unsigned HkName(const HkT*) {                                                                       \
    static_assert(hk_host_space_query_refused<HkT>::value,                                                                           \
                  #HkName " cannot run on the hkcheck host backend (one memory, no address spaces): mark the kernel \"gpu_only\"");   \
    return 0;                                                                                                                         \
  }
HK_HOST_SPACE_QUERY(__isShared)
HK_HOST_SPACE_QUERY(__isGlobal)
HK_HOST_SPACE_QUERY(__isLocal)
HK_HOST_SPACE_QUERY(__isConstant)
#undef HK_HOST_SPACE_QUERY
