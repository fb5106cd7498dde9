// Compilers opened with no device (compiler.h): the host's C++ compiler, and NVRTC and hipRTC
// where this hkcheck was built with them. CI builds every backend, so there a missing vendor
// compiler fails instead of skipping.
#include "platform/compiler.h"

#include <gtest/gtest.h>

#include "util/file_util.h"

namespace hk {
namespace {

const std::string kRmsnorm = std::string(REPO_DIR) + "/kernels/norm/rmsnorm.cu";

bool is_elf(const std::string& binary) { return binary.size() > 4 && binary.compare(0, 4, "\x7f" "ELF") == 0; }

std::unique_ptr<Compiler> open_or_skip(const std::string& backend, const std::string& arch, std::string* why) {
  try {
    return open_compiler(backend, arch);
  } catch (const BackendUnavailable& e) {
    *why = e.what();
    return nullptr;
  }
}

void compiles_rmsnorm(const std::string& backend, const std::string& arch, const std::string& version_prefix) {
  std::string why;
  auto c = open_or_skip(backend, arch, &why);
#ifdef HKCHECK_REQUIRE_ALL_BACKENDS
  ASSERT_TRUE(c) << backend << " compiler could not be opened: " << why;
#else
  if (!c) GTEST_SKIP() << why;
#endif
  EXPECT_EQ(c->version().rfind(version_prefix, 0), 0u) << c->version();
  const CompileOutput out = c->compile({read_file(kRmsnorm), kRmsnorm, {"-DT=bf16"}, {"rmsnorm"}});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_TRUE(is_elf(out.binary)) << "a cubin / code object is an ELF file";
  EXPECT_EQ(out.symbols.count("rmsnorm"), 1u) << "the entry is resolved";
  if (backend == "host") {
    // The host reads -D macros after its prelude (NVRTC's and hipRTC's own headers refuse
    // -DT=float), and names its own template parameters apart from them.
    const CompileOutput keyword = c->compile({read_file(kRmsnorm), kRmsnorm, {"-DT=float", "-DN=int", "-DOp=int", "-DF=int"}, {"rmsnorm"}});
    EXPECT_TRUE(keyword.ok) << keyword.log;
  }
  const CompileOutput bad = c->compile({"#include \"hkcheck.h\"\nHK_KERNEL void k(f32* o) { o[0] = ; }\n", "bad.cu", {}, {"k"}});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.log.find("bad.cu"), std::string::npos) << "the log names the file: " << bad.log;
}

TEST(Compiler, HostCompilesWithoutADevice) { compiles_rmsnorm("host", "sm_90", ""); }

#ifdef HKCHECK_WITH_CUDA
TEST(Compiler, NvrtcCompilesForSm90WithoutAGpu) { compiles_rmsnorm("cuda", "sm_90", "NVRTC "); }
#endif

#ifdef HKCHECK_WITH_HIP
TEST(Compiler, HiprtcCompilesForGfx90aWithoutAGpu) { compiles_rmsnorm("hip", "gfx90a", "hipRTC "); }
#endif

#ifdef HKCHECK_WITH_CUDA
// A kernel file as CUDA authors write it: toolkit and standard headers, C++ kernels, templates.
TEST(Compiler, NvrtcCompilesPlainCudaWithToolkitHeadersAndFindsTemplatesByName) {
  std::string why;
  auto c = open_or_skip("cuda", "sm_90", &why);
  if (!c) GTEST_SKIP() << why;
  const std::string source = R"(#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cassert>
#include <limits>
#include <vector>  // for host code below the kernels, as files often have it: an empty stand-in under NVRTC
namespace cg = cooperative_groups;
__device__ ushort low_half(unsigned v) { return static_cast<ushort>(v); }  // glibc's typedef, as nvcc sees it
template <typename T, int Block> __global__ void __launch_bounds__(Block) row_sum(float* out, const T* x, int64_t n) {
  using Reduce = cub::BlockReduce<float, Block>;
  __shared__ typename Reduce::TempStorage tmp;
  float v = 0.f;
  for (int64_t i = threadIdx.x; i < n; i += Block) v += static_cast<float>(x[i]);
  const float s = Reduce(tmp).Sum(v);
  cg::this_thread_block().sync();
  assert(std::isfinite(s) || n > 0);
  if (threadIdx.x == 0) out[0] = s + std::numeric_limits<float>::epsilon() * 0.f;
}
extern "C" __global__ void plain(float* y) { y[0] = std::sqrt(2.0f); }
)";
  const CompileOutput out = c->compile({source, "plain.cu", {}, {"row_sum<__nv_bfloat16, 256>", "plain"}});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.symbols.at("plain"), "plain");
  EXPECT_EQ(out.symbols.at("row_sum<__nv_bfloat16, 256>").rfind("_Z", 0), 0u) << "a mangled C++ name";
  const CompileOutput missing = c->compile({source, "plain.cu", {}, {"no_such<float>"}});
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.log.find("no_such"), std::string::npos) << missing.log;
}
#endif

#ifdef HKCHECK_WITH_CUDA
// cub's umbrella header under NVRTC: its block and warp collectives compile; the device-wide
// algorithms, host code that NVRTC cannot take, are named as such where device code uses them.
TEST(Compiler, NvrtcCompilesCubUmbrellaHeaderBlockAndWarpLayers) {
  std::string why;
  auto c = open_or_skip("cuda", "sm_90", &why);
  if (!c) GTEST_SKIP() << why;
  const std::string source = R"(#include <cub/cub.cuh>
template <int Block, int Items>
__global__ void collectives(int* out, const int* in, int n) {
  using Load = cub::BlockLoad<int, Block, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<int, Block, Items, cub::BLOCK_STORE_STRIPED>;
  using Sort = cub::BlockRadixSort<int, Block, Items, int>;
  using Scan = cub::BlockScan<int, Block>;
  using Reduce = cub::BlockReduce<int, Block>;
  using WarpSum = cub::WarpReduce<int>;
  using WarpPrefix = cub::WarpScan<int, 16>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } tmp;
  __shared__ typename WarpSum::TempStorage warp_tmp[Block / 32];
  __shared__ typename WarpPrefix::TempStorage prefix_tmp[Block / 16];
  int keys[Items], values[Items];
  Load(tmp.load).Load(in, keys, n, 0);
  for (int i = 0; i < Items; ++i) values[i] = i;
  __syncthreads();
  Sort(tmp.sort).SortDescendingBlockedToStriped(keys, values, 0, 16);
  __syncthreads();
  Scan(tmp.scan).ExclusiveSum(values, values);
  __syncthreads();
  const int total = Reduce(tmp.reduce).Sum(keys[0]);
  int prefix;
  WarpPrefix(prefix_tmp[threadIdx.x / 16]).InclusiveSum(keys[0], prefix);
  keys[0] += WarpSum(warp_tmp[threadIdx.x / 32]).Sum(prefix) + total;
  __syncthreads();
  Store(tmp.store).Store(out, keys, n);
}
)";
  const CompileOutput out = c->compile({source, "cub_all.cu", {}, {"collectives<128, 4>"}});
  ASSERT_TRUE(out.ok) << out.log;
  const CompileOutput device_wide = c->compile(
      {"#include <cub/cub.cuh>\n__global__ void k(float* p) {\n  size_t bytes = 0;\n  cub::DeviceReduce::Sum(nullptr, bytes, p, p, 4);\n}\n",
       "device_wide.cu", {}, {"k"}});
  EXPECT_FALSE(device_wide.ok);
  EXPECT_NE(device_wide.log.find("device_wide.cu(4)"), std::string::npos) << device_wide.log;
  EXPECT_NE(device_wide.log.find("device_wide_algorithms_are_host_code"), std::string::npos) << device_wide.log;
}
#endif

#ifdef HKCHECK_WITH_HIP
// A kernel file as HIP authors write it: HIP's own headers, bf16, standard limits, HIP's dynamic
// shared memory macro, mask-less warp functions, 64-bit ballots, templates by name.
TEST(Compiler, HiprtcCompilesPlainHipWithItsHeadersAndFindsTemplatesByName) {
  std::string why;
  auto c = open_or_skip("hip", "gfx90a", &why);
#ifdef HKCHECK_REQUIRE_ALL_BACKENDS
  ASSERT_TRUE(c) << why;
#else
  if (!c) GTEST_SKIP() << why;
#endif
  const std::string source = R"(#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#include <cstdint>
#include <climits>
#include <cfloat>
#include <cassert>
#include <cmath>
template <typename T, int Block> __global__ void __launch_bounds__(Block) row_max(float* out, const T* x, int64_t n) {
  HIP_DYNAMIC_SHARED(float, partial)
  float v = -FLT_MAX;
  for (int64_t i = threadIdx.x; i < n; i += Block) v = fmaxf(v, static_cast<float>(x[i]));
  for (int o = warpSize / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor(v, o));
  const unsigned long long lanes = __ballot(v > 0.f);
  if (__lane_id() == 0) partial[threadIdx.x / warpSize] = v + (lanes == 0 ? 0.f : 0.f);
  __syncthreads();
  assert(INT_MAX > 0 && INT64_MAX > 0);
  if (threadIdx.x == 0) out[0] = __builtin_amdgcn_readfirstlane(partial[0]);
}
extern "C" __global__ void bf16_scale(__hip_bfloat16* y, const __hip_bfloat16* x, hip_bfloat16* z, __half* h) {
  y[0] = __float2bfloat16(__bfloat162float(x[0]) * 2.f) + x[1];
  z[0] = hip_bfloat16(float(z[0]) * 3.f);
  h[0] = __float2half(__half2float(h[0]) + 1.f);
}
)";
  const CompileOutput out = c->compile({source, "plain.hip", {}, {"row_max<__hip_bfloat16, 256>", "bf16_scale"}});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.symbols.at("bf16_scale"), "bf16_scale");
  EXPECT_EQ(out.symbols.at("row_max<__hip_bfloat16, 256>").rfind("_Z", 0), 0u) << "a mangled C++ name";
}
#endif

TEST(Compiler, AnUnknownBackendIsUnavailable) { EXPECT_THROW(open_compiler("opencl", "x"), BackendUnavailable); }

}  // namespace
}  // namespace hk
