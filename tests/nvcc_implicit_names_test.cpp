// What a .cu file sees under nvcc with no #include (its qualifiers and attributes, the built-in
// variables, the vector types and their make_*, the intrinsics of device_functions.h and
// sm_*_intrinsics.h, atomics, printf) compiles under NVRTC and runs on the host backend: a real
// file using one of them would otherwise fail, and every kernel of that file with it. One test
// per name; each kernel writes 1 to out[0] when the name did what nvcc's does.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/backend.h"
#include "platform/compiler.h"

namespace hk {
namespace {

struct ImplicitName {
  const char* name;
  const char* before;  // file scope, before the kernel
  const char* body;    // in `extern "C" __global__ void k(int* out)`, one block of 32 threads
  const char* host_refusal = nullptr;  // what the host backend's compile error says, for what the CPU cannot answer
};

const std::vector<ImplicitName>& names() {
  static const std::vector<ImplicitName> all = {
      {"__host__ __device__", "__host__ __device__ int f() { return 1; }", "if (threadIdx.x == 0) out[0] = f();"},
      {"__forceinline__", "__device__ __forceinline__ int f() { return 1; }", "if (threadIdx.x == 0) out[0] = f();"},
      {"__noinline__", "__device__ __noinline__ int f() { return 1; }", "if (threadIdx.x == 0) out[0] = f();"},
      {"__inline__", "__device__ __inline__ int f() { return 1; }", "if (threadIdx.x == 0) out[0] = f();"},
      {"__align__", "struct __align__(16) S { float a; };", "if (threadIdx.x == 0) out[0] = alignof(S) == 16;"},
      {"__builtin_align__", "struct __builtin_align__(8) S { float a; };", "if (threadIdx.x == 0) out[0] = alignof(S) == 8;"},
      {"__launch_bounds__ of one two and three", "extern \"C\" __global__ void __launch_bounds__(128) one(int* o) { o[0] = 1; }\nextern \"C\" __global__ void __launch_bounds__(128, 2, 1) three(int* o) { o[0] = 1; }",
       "if (threadIdx.x == 0) out[0] = 1;"},
      {"__restrict__", "__device__ int f(const int* __restrict__ p) { return *p; }", "int one = 1; if (threadIdx.x == 0) out[0] = f(&one);"},
      {"__shared__", "", "__shared__ int s[32]; s[threadIdx.x] = 1; __syncthreads(); if (threadIdx.x == 0) out[0] = s[31];"},
      {"__constant__", "__constant__ int c_one = 1;", "if (threadIdx.x == 0) out[0] = c_one;"},
      {"__device__ variable", "__device__ int d_one = 1;", "if (threadIdx.x == 0) out[0] = d_one;"},
      {"__managed__", "__managed__ int m_one = 1;", "if (threadIdx.x == 0) out[0] = m_one;"},
      {"__grid_constant__", "struct P { int v; }; extern \"C\" __global__ void g(const __grid_constant__ P p, int* o) { o[0] = p.v; }",
       "if (threadIdx.x == 0) out[0] = 1;"},
      {"warpSize", "", "if (threadIdx.x == 0) out[0] = warpSize == 32 || warpSize == 64;"},
      {"blockDim gridDim blockIdx", "", "if (threadIdx.x == 0) out[0] = blockDim.x == 32 && gridDim.x == 1 && blockIdx.x == 0;"},
      {"dim3", "", "dim3 d(2); if (threadIdx.x == 0) out[0] = d.x == 2 && d.y == 1 && d.z == 1;"},
      {"char4 uchar4 make_char4", "", "char4 c = make_char4(1, 2, 3, 4); uchar4 u = make_uchar4(1, 2, 3, 4); if (threadIdx.x == 0) out[0] = c.w + u.w == 8 && sizeof(c) == 4;"},
      {"short2 ushort4 make_short2", "", "short2 s = make_short2(1, 2); ushort4 u = make_ushort4(1, 2, 3, 4); if (threadIdx.x == 0) out[0] = s.y + u.w == 6 && sizeof(u) == 8;"},
      {"int1 int2 int3 int4", "", "int1 a = make_int1(1); int2 b = make_int2(1, 2); int3 c = make_int3(1, 2, 3); int4 d = make_int4(1, 2, 3, 4); if (threadIdx.x == 0) out[0] = a.x + b.y + c.z + d.w == 10 && sizeof(d) == 16 && alignof(int4) == 16;"},
      {"uint2 uint3 uint4", "", "uint2 a = make_uint2(1, 2); uint3 b = make_uint3(1, 2, 3); uint4 c = make_uint4(1, 2, 3, 4); if (threadIdx.x == 0) out[0] = a.y + b.z + c.w == 9;"},
      {"long2 ulong2 longlong2 ulonglong2", "", "long2 a = make_long2(1, 2); ulong2 b = make_ulong2(1, 2); longlong2 c = make_longlong2(1, 2); ulonglong2 d = make_ulonglong2(1, 2); if (threadIdx.x == 0) out[0] = a.y + b.y + c.y + d.y == 8 && alignof(longlong2) == 16;"},
      {"float1 float2 float3 float4", "", "float1 a = make_float1(1); float2 b = make_float2(1, 2); float3 c = make_float3(1, 2, 3); float4 d = make_float4(1, 2, 3, 4); if (threadIdx.x == 0) out[0] = a.x + b.y + c.z + d.w == 10.f && sizeof(c) == 12 && alignof(float2) == 8;"},
      {"double2 double4", "", "double2 a = make_double2(1, 2); double4 b = make_double4(1, 2, 3, 4); if (threadIdx.x == 0) out[0] = a.y + b.w == 6.0;"},
      {"__syncthreads_count and or", "", "int c = __syncthreads_count(threadIdx.x < 4), a = __syncthreads_and(1), o = __syncthreads_or(threadIdx.x == 3); if (threadIdx.x == 0) out[0] = c == 4 && a && o;"},
      {"__syncwarp __threadfence", "", "__syncwarp(); __threadfence(); __threadfence_block(); __threadfence_system(); if (threadIdx.x == 0) out[0] = 1;"},
      {"__shfl_sync", "", "int v = __shfl_sync(0xffffffffu, (int)threadIdx.x, 5); if (threadIdx.x == 0) out[0] = v == 5;"},
      {"__shfl_xor_up_down_sync", "", "int x = __shfl_xor_sync(0xffffffffu, (int)threadIdx.x, 1), u = __shfl_up_sync(0xffffffffu, (int)threadIdx.x, 1), d = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 1); if (threadIdx.x == 2) out[0] = x == 3 && u == 1 && d == 3;"},
      {"__ballot_sync __all_sync __any_sync", "", "unsigned b = __ballot_sync(0xffffffffu, threadIdx.x < 3); int a = __all_sync(0xffffffffu, 1), n = __any_sync(0xffffffffu, threadIdx.x == 7); if (threadIdx.x == 0) out[0] = b == 7u && a && n;"},
      {"__activemask", "", "unsigned m = __activemask(); if (threadIdx.x == 0) out[0] = m != 0u;"},
      {"__match_any_sync", "", "unsigned m = __match_any_sync(0xffffffffu, (int)(threadIdx.x / 8)); if (threadIdx.x == 0) out[0] = m == 0xffu;"},
      {"__reduce_add_sync", "", "unsigned s = __reduce_add_sync(0xffffffffu, 1u); if (threadIdx.x == 0) out[0] = s == 32u;"},
      {"__popc __popcll __clz __ffs", "", "if (threadIdx.x == 0) out[0] = __popc(0xf0u) == 4 && __popcll(0xffull) == 8 && __clz(1) == 31 && __ffs(8) == 4 && __clzll(1ll) == 63 && __ffsll(16ll) == 5;"},
      {"__brev __byte_perm __funnelshift_l", "", "if (threadIdx.x == 0) out[0] = __brev(1u) == 0x80000000u && __byte_perm(0x04030201u, 0u, 0x0123) == 0x01020304u && __funnelshift_l(0x80000000u, 1u, 1) == 3u && __funnelshift_r(1u, 0u, 1) == 0u;"},
      {"__mul24 __umulhi __mulhi __sad", "", "if (threadIdx.x == 0) out[0] = __mul24(3, 4) == 12 && __umulhi(0x80000000u, 4u) == 2u && __mulhi(1 << 30, 8) == 2 && __sad(1, 4, 0u) == 3u && __umul24(3u, 5u) == 15u;"},
      {"__int_as_float __float_as_int __float_as_uint", "", "if (threadIdx.x == 0) out[0] = __float_as_int(1.f) == 0x3f800000 && __int_as_float(0x3f800000) == 1.f && __float_as_uint(2.f) == 0x40000000u && __uint_as_float(0x40000000u) == 2.f;"},
      {"__double_as_longlong __hiloint2double", "", "if (threadIdx.x == 0) out[0] = __double_as_longlong(1.0) == 0x3ff0000000000000ll && __longlong_as_double(0x3ff0000000000000ll) == 1.0 && __hiloint2double(0x3ff00000, 0) == 1.0 && __double2hiint(1.0) == 0x3ff00000 && __double2loint(1.0) == 0;"},
      {"__float2int_rn and the other roundings", "", "if (threadIdx.x == 0) out[0] = __float2int_rn(2.5f) == 2 && __float2int_rz(-2.7f) == -2 && __float2int_rd(-2.5f) == -3 && __float2int_ru(2.1f) == 3 && __float2uint_rn(3.5f) == 4u && __int2float_rn(3) == 3.f && __double2int_rn(3.5) == 4 && __float2ll_rn(2.5f) == 2ll;"},
      {"__expf __logf __sinf __cosf __powf", "", "if (threadIdx.x == 0) out[0] = fabsf(__expf(0.f) - 1.f) < 1e-6f && fabsf(__logf(1.f)) < 1e-6f && fabsf(__sinf(0.f)) < 1e-6f && fabsf(__cosf(0.f) - 1.f) < 1e-6f && fabsf(__powf(2.f, 3.f) - 8.f) < 1e-4f && fabsf(__exp10f(1.f) - 10.f) < 1e-3f && fabsf(__log2f(8.f) - 3.f) < 1e-5f && fabsf(__tanf(0.f)) < 1e-6f;"},
      {"__fdividef __saturatef __frcp_rn __fsqrt_rn", "", "float s = 0, c = 0; __sincosf(0.f, &s, &c); if (threadIdx.x == 0) out[0] = __fdividef(6.f, 3.f) == 2.f && __saturatef(2.f) == 1.f && __saturatef(-1.f) == 0.f && __frcp_rn(4.f) == 0.25f && __fsqrt_rn(9.f) == 3.f && c == 1.f && __frsqrt_rn(4.f) == 0.5f;"},
      {"__fadd_rz __fmul_rd __fdiv_ru __dadd_rd", "", "if (threadIdx.x == 0) out[0] = __fadd_rz(1.f, 1e-9f) == 1.f && __fadd_ru(1.f, 1e-9f) > 1.f && __fsub_rd(1.f, 1e-9f) < 1.f && __fmul_rd(1.f / 3.f, 3.f) == 1.f && __fmul_ru(1.f / 3.f, 3.f) > 1.f && __fmul_rz(-1.f / 3.f, 3.f) == -1.f && __fdiv_ru(1.f, 3.f) > __fdiv_rz(1.f, 3.f) && __fdiv_rd(-1.f, 3.f) < __fdiv_rz(-1.f, 3.f) && __dadd_rd(1.0, 1e-30) == 1.0 && __dadd_ru(1.0, 1e-30) > 1.0 && __ddiv_rz(1.0, 3.0) < __ddiv_ru(1.0, 3.0);"},
      {"__fadd_rn __fmul_rn __fmaf_rn __fdiv_rn", "", "if (threadIdx.x == 0) out[0] = __fadd_rn(1.f, 2.f) == 3.f && __fmul_rz(2.f, 3.f) == 6.f && __fmaf_rn(2.f, 3.f, 1.f) == 7.f && __fdiv_rn(1.f, 4.f) == 0.25f && __fsub_rn(3.f, 1.f) == 2.f && __dadd_rn(1.0, 2.0) == 3.0 && __fma_rn(2.0, 3.0, 1.0) == 7.0;"},
      {"rsqrtf sqrtf fmaf fmaxf exp2f", "", "if (threadIdx.x == 0) out[0] = rsqrtf(4.f) == 0.5f && sqrtf(9.f) == 3.f && fmaf(2.f, 3.f, 1.f) == 7.f && fmaxf(1.f, 2.f) == 2.f && fminf(1.f, 2.f) == 1.f && exp2f(3.f) == 8.f && truncf(2.7f) == 2.f && rintf(2.5f) == 2.f && copysignf(1.f, -2.f) == -1.f;"},
      {"rcbrt normcdff erfinvf sinpif", "", "if (threadIdx.x == 0) out[0] = fabsf(rcbrtf(8.f) - 0.5f) < 1e-6f && fabsf(normcdff(0.f) - 0.5f) < 1e-6f && fabsf(erfinvf(0.f)) < 1e-6f && fabsf(sinpif(0.5f) - 1.f) < 1e-6f && fabsf(cospif(1.f) + 1.f) < 1e-6f && fabs(rsqrt(4.0) - 0.5) < 1e-12;"},
      {"min max on int and float", "", "if (threadIdx.x == 0) out[0] = min(3, 4) == 3 && max(3u, 4u) == 4u && min(1.5f, 2.5f) == 1.5f && max(1.0, 2.0) == 2.0 && min(1ll, 2ll) == 1ll && umin(1u, 2u) == 1u && llmax(1ll, 2ll) == 2ll;"},
      {"isnan isinf signbit __isnanf", "", "float z = out[1] * 0.f; if (threadIdx.x == 0) out[0] = !isnan(1.f) && isinf(1.f / z) && signbit(-1.f) && !__isnanf(2.f) && !__isinff(2.f) && __finitef(2.f);"},
      {"atomicAdd int float double", "__device__ int ai; __device__ float af; __device__ double ad;", "if (threadIdx.x == 0) { ai = 0; af = 0; ad = 0; } __syncthreads(); atomicAdd(&ai, 1); atomicAdd(&af, 1.f); atomicAdd(&ad, 1.0); __syncthreads(); if (threadIdx.x == 0) out[0] = ai == 32 && af == 32.f && ad == 32.0;"},
      {"atomicCAS atomicExch atomicSub", "__device__ int a;", "if (threadIdx.x == 0) { a = 0; } __syncthreads(); if (threadIdx.x == 0) { int old = atomicCAS(&a, 0, 5); int was = atomicExch(&a, 9); atomicSub(&a, 2); out[0] = old == 0 && was == 5 && a == 7; }"},
      {"atomicMax atomicMin atomicAnd atomicOr atomicXor", "__device__ int a; __device__ unsigned b;", "if (threadIdx.x == 0) { a = 0; b = 0; } __syncthreads(); atomicMax(&a, (int)threadIdx.x); atomicOr(&b, 1u << threadIdx.x); __syncthreads(); if (threadIdx.x == 0) { atomicMin(&a, 40); atomicAnd(&b, 0xffu); atomicXor(&b, 1u); out[0] = a == 31 && b == 0xfeu; }"},
      {"atomicInc atomicDec", "__device__ unsigned a;", "if (threadIdx.x == 0) { a = 0; unsigned x = atomicInc(&a, 1u); unsigned y = atomicInc(&a, 1u); unsigned z = atomicDec(&a, 5u); out[0] = x == 0u && y == 1u && z == 0u && a == 5u; }"},
      {"atomicAdd_block atomicAdd_system", "__device__ int a;", "if (threadIdx.x == 0) { a = 0; } __syncthreads(); atomicAdd_block(&a, 1); atomicAdd_system(&a, 1); __syncthreads(); if (threadIdx.x == 0) out[0] = a == 64;"},
      {"atomicAdd unsigned long long", "__device__ unsigned long long a;", "if (threadIdx.x == 0) { a = 0; } __syncthreads(); atomicAdd(&a, 1ull); __syncthreads(); if (threadIdx.x == 0) out[0] = a == 32ull;"},
      {"__ldg __ldcs __ldcg __stcs __stwt", "", "const int* one = out + 1; int w = __ldg(one) + __ldcs(one) + __ldcg(one) + __ldca(one) + __ldlu(one) + __ldcv(one); __syncthreads(); if (threadIdx.x == 0) { __stcs(out + 1, 2); __stwt(out + 1, 3); __stcg(out + 1, 4); __stwb(out + 1, 1); out[0] = w == 6 && __ldcv(out + 1) == 1; }"},
      {"clock clock64 __nanosleep", "", "long long a = clock64(); clock_t b = clock(); __nanosleep(10); if (threadIdx.x == 0) out[0] = a >= 0 && b >= 0 && clock64() >= a;"},
      {"printf", "", "if (threadIdx.x == 32) printf(\"%d\\n\", 1); if (threadIdx.x == 0) out[0] = 1;"},
      {"__trap __brkpt unused", "__device__ void never() { __trap(); }", "if (threadIdx.x == 0) out[0] = 1;"},
      {"__CUDACC__ __CUDA_ARCH__", "", "int ok = 0;\n#if defined(__CUDACC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\nok = 1;\n#endif\nif (threadIdx.x == 0) out[0] = ok;"},
      {"__CUDACC_VER_MAJOR__", "", "int ok = 0;\n#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 11\nok = 1;\n#endif\nif (threadIdx.x == 0) out[0] = ok;"},
      {"__cvta_generic_to_shared", "", "__shared__ int s; size_t a = __cvta_generic_to_shared(&s); (void)a; if (threadIdx.x == 0) out[0] = 1;"},
      {"__isShared __isGlobal", "", "__shared__ int s; if (threadIdx.x == 0) out[0] = __isShared(&s) && !__isShared(out) && __isGlobal(out);",
       "__isShared cannot run on the hkcheck host backend (one memory, no address spaces)"},
      {"__dp4a __dp2a_lo", "", "if (threadIdx.x == 0) out[0] = __dp4a(0x01010101, 0x02020202, 1) == 9 && __dp2a_lo(0x00010001, 0x01020304, 0) == 7 && __dp2a_hi(0x00010001, 0x01020304, 0) == 3;"},
      {"__vadd2 __vsub4 __vabsdiffu4", "", "if (threadIdx.x == 0) out[0] = __vadd2(0x00010002u, 0x00010001u) == 0x00020003u && __vsub4(0x05050505u, 0x01010101u) == 0x04040404u && __vabsdiffu4(0x01050000u, 0x05010000u) == 0x04040000u;"},
      {"__hadd __rhadd __uhadd", "", "if (threadIdx.x == 0) out[0] = __hadd(3, 4) == 3 && __rhadd(3, 4) == 4 && __uhadd(3u, 5u) == 4u;"},
  };
  return all;
}

std::string source_of(const ImplicitName& n) {
  return std::string(n.before) + "\nextern \"C\" __global__ void __launch_bounds__(64, 1) k(int* out) {\n" + n.body + "\n}\n";
}

std::string param_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string s;
  for (char c : std::string(names()[info.param].name)) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

struct NvccImplicitName : ::testing::TestWithParam<size_t> {};

// Runs n's kernel on be and expects its 1.
void run_and_expect_one(Backend& be, const ImplicitName& n) {
  const CompileOutput c = be.compile({source_of(n), "implicit.cu", {}, {"k"}});
  EXPECT_TRUE(c.ok) << n.name << ":\n" << c.log;
  if (!c.ok) return;
  const int initial[2] = {-7, 1};
  const uint64_t out = be.alloc(sizeof initial);
  be.upload(out, initial, sizeof initial);
  void* args[] = {const_cast<uint64_t*>(&out), nullptr};
  be.launch(be.load(c.binary, c.symbols.at("k")), {1, 1, 1}, {32, 1, 1}, 0, args);
  be.synchronize();
  int got[2] = {};
  be.download(got, out, sizeof got);
  EXPECT_EQ(got[0], 1) << n.name << " did not do what nvcc's does on " << be.device().name;
}

TEST_P(NvccImplicitName, RunsOnTheHostBackendOrIsNamed) {
  const ImplicitName& n = names()[GetParam()];
  const std::unique_ptr<Backend> be = open_backend("host", 0, HostOptions{"h100", 1});
  if (!n.host_refusal) {
    run_and_expect_one(*be, n);
    return;
  }
  const CompileOutput c = be->compile({source_of(n), "implicit.cu", {}, {"k"}});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.log.find(n.host_refusal), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("implicit.cu:3"), std::string::npos) << "the refusal names the line that asks: " << c.log;
}

#ifdef HKCHECK_WITH_CUDA
TEST_P(NvccImplicitName, CompilesUnderNvrtc) {
  const ImplicitName& n = names()[GetParam()];
  std::unique_ptr<Compiler> nvrtc;
  try {
    nvrtc = open_compiler("cuda", "sm_90");
  } catch (const BackendUnavailable& e) {
#ifdef HKCHECK_REQUIRE_ALL_BACKENDS
    FAIL() << e.what();
#else
    GTEST_SKIP() << e.what();
#endif
  }
  const CompileOutput c = nvrtc->compile({source_of(n), "implicit.cu", {}, {"k"}});
  EXPECT_TRUE(c.ok) << n.name << ":\n" << c.log;
}
#endif

#ifdef HKCHECK_WITH_CUDA
// Where a GPU is (the GPU machine's unit tests): what the table expects is what nvcc's does.
TEST_P(NvccImplicitName, RunsOnAGpu) {
  std::unique_ptr<Backend> gpu;
  try {
    gpu = open_backend("cuda", 0, HostOptions{});
  } catch (const BackendUnavailable& e) {
    GTEST_SKIP() << "no GPU: " << e.what();
  }  // any other error (a context an earlier kernel broke) fails the test instead of hiding it
  run_and_expect_one(*gpu, names()[GetParam()]);
}
#endif

INSTANTIATE_TEST_SUITE_P(Names, NvccImplicitName, ::testing::Range<size_t>(0, names().size()), param_name);

}  // namespace
}  // namespace hk
