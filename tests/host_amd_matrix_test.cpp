// The CDNA built-ins tile libraries use, on the host backend's mi325x and mi355x profiles: each
// MFMA against the product of the documented lane layouts of its A, B and D registers, computed
// here; raw buffer loads and stores with the hardware's range check; wait-only inline assembly;
// and the refusals (an instruction of the other generation, an instruction not emulated).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/host/source_rewrite.h"
#include "test_util.h"
#include "host_subset_fixture.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

struct HostAmdMatrix : HostSubset {
  bool gfx950() const { return std::string(GetParam()) == "mi355x"; }
};

struct Mfma {
  const char* builtin;
  int m, k;
  const char* element;  // the HIP type each value is converted to in the kernel
  int bytes;            // of one value
  bool gfx950_only;
};

// A(i, k) is value k % per of lane i + m * (k / per); B(k, j) likewise with j; D register r of
// lane l is D(8 * (r / 4) + 4 * (l / 32) + r % 4, l % 32) for 32x32 and D(4 * (l / 16) + r, l % 16)
// for 16x16. The kernel places the operands by these rules; the emulation must multiply them.
std::string mfma_kernel(const Mfma& f, const std::string& fp8) {
  const int per = f.k / (64 / f.m), regs = f.m * f.m / 64;
  const std::string element = std::string(f.element) == "fp8" ? fp8 : f.element;
  return fmt::format(R"(#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>
typedef unsigned char hk_bytes __attribute__((vector_size({0} * {1})));
typedef float hk_acc __attribute__((vector_size(4 * {2})));
template <typename T> unsigned bits_of(T v) {{ unsigned b = 0; memcpy(&b, &v, sizeof v); return b; }}
__global__ void mm(float* d, const float* a, const float* b) {{
  const int l = threadIdx.x, m = {3}, k = {4}, per = {0};
  hk_bytes va, vb;
  for (int v = 0; v < per; ++v) {{
    const unsigned x = bits_of({5}(a[(l % m) * k + per * (l / m) + v])), y = bits_of({5}(b[(per * (l / m) + v) * m + l % m]));
    memcpy((unsigned char*)&va + v * {1}, &x, {1});
    memcpy((unsigned char*)&vb + v * {1}, &y, {1});
  }}
  hk_acc c;
  for (int r = 0; r < {2}; ++r) c[r] = 0.5f * r + l;
  c = {6}(va, vb, c, 0, 0, 0);
  for (int r = 0; r < {2}; ++r) {{
    const int i = m == 32 ? 8 * (r / 4) + 4 * (l / 32) + r % 4 : 4 * (l / 16) + r;
    d[i * m + l % m] = c[r];
  }}
}})",
                     per, f.bytes, regs, f.m, f.k, element, f.builtin);
}

const Mfma kMfmas[] = {
    {"__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", 32, 8, "__float2bfloat16", 2, false},
    {"__builtin_amdgcn_mfma_f32_16x16x16bf16_1k", 16, 16, "__float2bfloat16", 2, false},
    {"__builtin_amdgcn_mfma_f32_32x32x8f16", 32, 8, "__float2half", 2, false},
    {"__builtin_amdgcn_mfma_f32_16x16x16f16", 16, 16, "__float2half", 2, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8", 32, 16, "fp8", 1, false},
    {"__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8", 16, 32, "fp8", 1, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_bf16", 32, 16, "__float2bfloat16", 2, true},
    {"__builtin_amdgcn_mfma_f32_16x16x32_bf16", 16, 32, "__float2bfloat16", 2, true},
    {"__builtin_amdgcn_mfma_f32_32x32x16_f16", 32, 16, "__float2half", 2, true},
    {"__builtin_amdgcn_mfma_f32_16x16x32_f16", 16, 32, "__float2half", 2, true},
};

TEST_P(HostAmdMatrix, EachMfmaIsTheProductOfItsDocumentedLaneLayouts) {
  // fp8 is OCP e4m3 on gfx950 and e4m3 fnuz on gfx942: both hold these quarter steps exactly.
  const std::string fp8 = gfx950() ? "__hip_fp8_e4m3" : "__hip_fp8_e4m3_fnuz";
  for (const Mfma& f : kMfmas) {
    if (f.gfx950_only && !gfx950()) continue;
    SCOPED_TRACE(f.builtin);
    const int m = f.m, k = f.k;
    std::vector<float> a(m * k), b(k * m);
    for (int i = 0; i < m; ++i)
      for (int kk = 0; kk < k; ++kk) a[i * k + kk] = 0.25f * static_cast<float>((i * 7 + kk * 3) % 9 - 4);
    for (int kk = 0; kk < k; ++kk)
      for (int j = 0; j < m; ++j) b[kk * m + j] = 0.25f * static_cast<float>((kk * 5 + j * 11) % 7 - 3);
    const uint64_t da = upload(a), db = upload(b), dd = be->alloc(m * m * 4);
    void* args[] = {const_cast<uint64_t*>(&dd), const_cast<uint64_t*>(&da), const_cast<uint64_t*>(&db), nullptr};
    const Backend::Kernel kern = kernel(mfma_kernel(f, fp8), "mm");
    if (!kern) continue;
    be->launch(kern, {1, 1, 1}, {64, 1, 1}, 0, args);
    be->synchronize();
    const std::vector<float> d = download<float>(dd, m * m);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        // The lane and register that hold D(i, j), for the C each lane started from.
        const int lane = m == 32 ? j + 32 * ((i / 4) % 2) : j + 16 * (i / 4);
        const int r = m == 32 ? 4 * (i / 8) + i % 4 : i % 4;
        float want = 0.5f * r + lane;
        for (int kk = 0; kk < k; ++kk) want += a[i * k + kk] * b[kk * m + j];
        ASSERT_EQ(d[i * m + j], want) << "D(" << i << ", " << j << ")";
      }
  }
}

TEST_P(HostAmdMatrix, Gfx950InstructionsAreRefusedOnGfx942AsHiprtcRefusesThem) {
  if (gfx950()) GTEST_SKIP() << "the mi355x profile has them";
  const CompileOutput c = be->compile({mfma_kernel(kMfmas[6], ""), "mfma.hip", {}, {"mm"}});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.log.find("__builtin_amdgcn_mfma_f32_32x32x16_bf16 is a gfx950 (CDNA4) instruction"), std::string::npos) << c.log;
  // An inline function no kernel calls is not compiled to code, by hipRTC as here: no error.
  const CompileOutput unused = be->compile({"#include <hip/hip_runtime.h>\n"
                                            "typedef float v16 __attribute__((vector_size(64)));\n"
                                            "typedef short v8 __attribute__((vector_size(16)));\n"
                                            "inline void unused(v16& d, v8 a) { d = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, a, d, 0, 0, 0); }\n"
                                            "__global__ void k(float* p) { p[0] = 1; }\n",
                                            "unused.hip", {}, {"k"}});
  EXPECT_TRUE(unused.ok) << unused.log;
}

TEST_P(HostAmdMatrix, RawBufferAccessesPastTheRecordsReadZeroAndWriteNothing) {
  const char* src = R"(#include <hip/hip_runtime.h>
typedef int hk_i32x4 __attribute__((ext_vector_type(4)));
__device__ unsigned long long label_load_b64(hk_i32x4, unsigned, unsigned, unsigned) __asm("llvm.amdgcn.raw.buffer.load.i64");
__global__ void buf(unsigned* out, unsigned* data) {
  // 10 records of bytes: dwords 0 and 1 whole, dword 2 half inside (not loaded), 3 outside.
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(data, 0, 10, 0x00020000);
  const int l = threadIdx.x;
  out[l] = __builtin_amdgcn_raw_buffer_load_b32(r, 4 * l, 0, 0);
  hk_host_u32x4 q = __builtin_amdgcn_raw_buffer_load_b128(r, 0, 0, 0);
  if (l == 0) for (int i = 0; i < 4; ++i) out[4 + i] = q[i];
  hk_i32x4 raw;
  memcpy(&raw, &r, 16);
  const unsigned long long w = label_load_b64(raw, 4, 0, 0);
  if (l == 0) out[8] = (unsigned)w, out[9] = (unsigned)(w >> 32);
  __builtin_amdgcn_raw_buffer_store_b32(100u + l, r, 4 * l, 0, 0);
}
)";
  std::vector<unsigned> data = {11, 22, 33, 44, 55};
  const uint64_t dd = upload(data), dout = upload(std::vector<unsigned>(10, 7));
  void* args[] = {const_cast<uint64_t*>(&dout), const_cast<uint64_t*>(&dd), nullptr};
  const Backend::Kernel kern = kernel(src, "buf");
  ASSERT_TRUE(kern);
  be->launch(kern, {1, 1, 1}, {4, 1, 1}, 0, args);
  be->synchronize();
  EXPECT_EQ(download<unsigned>(dout, 10), (std::vector<unsigned>{11, 22, 0, 0, 11, 22, 0, 0, 22, 0}));
  EXPECT_EQ(download<unsigned>(dd, 5), (std::vector<unsigned>{100, 101, 33, 44, 55})) << "stores past the records are dropped";
}

TEST_P(HostAmdMatrix, WaitOnlyAssemblyRunsAndOtherInstructionsAreNamed) {
  const char* waits = R"(#include <hip/hip_runtime.h>
__global__ void w(int* p) {
  p[threadIdx.x] = 1;
  asm volatile("s_waitcnt lgkmcnt(0)\n\ts_nop 1" ::: "memory");
  asm volatile("s_barrier");
  const int next = p[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
  p[threadIdx.x] += next;
}
)";
  const uint64_t dp = upload(std::vector<int>(64, 0));
  void* args[] = {const_cast<uint64_t*>(&dp), nullptr};
  const Backend::Kernel kern = kernel(waits, "w");
  ASSERT_TRUE(kern);
  be->launch(kern, {1, 1, 1}, {64, 1, 1}, 0, args);
  be->synchronize();
  EXPECT_EQ(download<int>(dp, 64), std::vector<int>(64, 2)) << "s_barrier is the block barrier";
  const CompileOutput c = be->compile({"#include <hip/hip_runtime.h>\n__global__ void k(float* p) {\n  float x;\n"
                                       "  asm volatile(\"v_mov_b32 %0, %1\" : \"=v\"(x) : \"v\"(p[0]));\n  p[1] = x;\n}\n",
                                       "mov.hip", {}, {"k"}});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.log.find("mov.hip:4"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("inline assembly (`v_mov_b32`) cannot run on the hkcheck host backend"), std::string::npos) << c.log;
}

// A tile library's header, reached through -I, as HipKittens' are: AMD register clobbers in a
// macro, an inline function of real instructions and one of an AMD built-in the host lacks, a
// discarded static_assert(false); the kernel uses what only waits and an emulated MFMA. It
// compiles and runs from the rewritten copy, and its messages name the library's own file.
TEST_P(HostAmdMatrix, ALibrarysHeadersAreCompiledFromARewrittenCopy) {
  test::TempDir dir;
  fs::create_directories(dir.path() + "/lib/tile");
  std::ofstream(dir.path() + "/lib/tile/ops.h") << R"hdr(#pragma once
#include <hip/hip_runtime.h>
#define CLOBBER(N) case N: asm volatile("" ::: "a" #N); break;
inline void clobber(int n) { switch (n) { CLOBBER(0) CLOBBER(1) } }
inline float by_asm(float x) {
  float y;
  asm volatile("v_mul_f32 %0, %1, %1"
               : "=v"(y)
               : "v"(x));
  return y;
}
inline unsigned swapped(unsigned a) { return __builtin_amdgcn_permlane32_swap(a, a, false, false)[0]; }
template <int N> float pick() { if constexpr (N > 0) { return N; } else { static_assert(false, "N > 0"); } }
inline void wait_all() { asm volatile("s_waitcnt vmcnt(0) lgkmcnt(0)"); }
)hdr";
  const char* src = R"(#include "tile/ops.h"
typedef short v4 __attribute__((vector_size(8)));
typedef float f4 __attribute__((vector_size(16)));
__global__ void k(float* out) {
  clobber(threadIdx.x % 2);
  wait_all();
  v4 ones;
  for (int i = 0; i < 4; ++i) ones[i] = 0x3f80;  // bf16 1.0
  f4 c = {0, 0, 0, 0};
  c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(ones, ones, c, 0, 0, 0);
  out[threadIdx.x] = c[0] + pick<2>();
}
)";
  const CompileOutput c = be->compile({src, dir.path() + "/kernel.hip", {"-std=c++20", "-I" + dir.path() + "/lib"}, {"k"}});
  ASSERT_TRUE(c.ok) << c.log;
  EXPECT_EQ(c.log.find("/headers/"), std::string::npos) << "messages name the library's file, not the copy: " << c.log;
  const uint64_t dout = upload(std::vector<float>(64, -1.f));
  void* args[] = {const_cast<uint64_t*>(&dout), nullptr};
  be->launch(be->load(c.binary, c.symbols.at("k")), {1, 1, 1}, {64, 1, 1}, 0, args);
  be->synchronize();
  EXPECT_EQ(download<float>(dout, 64), std::vector<float>(64, 18.f)) << "16 products of 1 x 1, plus 2";
}

INSTANTIATE_TEST_SUITE_P(Profiles, HostAmdMatrix, ::testing::Values("mi325x", "mi355x"));

// A library header is rewritten lazily: what only waits vanishes, line numbers stay, an asm label
// stays, and what cannot run becomes a call that stops the case only if it runs.
TEST(HostHeaderRewrite, LibraryAssemblyIsLazyAndKeepsLines) {
  const std::string header =
      "#define CLOBBER(N) case N: asm volatile(\"\" ::: \"a\" #N); break;\n"
      "__device__ unsigned ld(int) __asm(\"llvm.amdgcn.raw.buffer.load.i32\");\n"
      "inline void mma(float& d) {\n"
      "  asm volatile(\"v_mfma_f32_16x16x32_bf16 %0, %1, %2, %0\"\n"
      "               : \"+v\"(d)\n"
      "               : \"v\"(d), \"v\"(d));\n"
      "  asm volatile(\"s_waitcnt lgkmcnt(0)\");  // asm(\"x\") in a comment\n"
      "  d += __builtin_amdgcn_permlane32_swap(1, 2, false, false)[0] + __builtin_amdgcn_mfma_f32_32x32x8f16;\n"
      "}\n"
      "template <int N> void pick() { if constexpr (N > 0) {} else { static_assert( false, \"N > 0\"); } }\n";
  const std::string out = host::rewrite_header_for_host(header);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(header.begin(), header.end(), '\n')) << out;
  EXPECT_NE(out.find("case N: ((void)0); break;"), std::string::npos) << out;
  EXPECT_NE(out.find("__asm(\"llvm.amdgcn.raw.buffer.load.i32\")"), std::string::npos) << out;
  EXPECT_NE(out.find("hk_host_unemulated{\"inline assembly `v_mfma_f32_16x16x32_bf16`\", __FILE__, __LINE__}();"), std::string::npos) << out;
  EXPECT_NE(out.find("((void)0);  // asm(\"x\") in a comment"), std::string::npos) << out;
  EXPECT_NE(out.find("hk_host_unemulated{\"__builtin_amdgcn_permlane32_swap\", __FILE__, __LINE__}(1, 2"), std::string::npos) << out;
  EXPECT_NE(out.find("+ __builtin_amdgcn_mfma_f32_32x32x8f16;"), std::string::npos) << "an emulated built-in stays: " << out;
  EXPECT_NE(out.find("static_assert( true, \"N > 0\")"), std::string::npos) << "a discarded static_assert(false) is valid C++: " << out;
}

}  // namespace
}  // namespace hk
