// Compilers opened with no device (compiler.h): the host's C++ compiler, and NVRTC and hipRTC
// where this hkcheck was built with them. CI builds every backend, so there a missing vendor
// compiler fails instead of skipping.
#include "compiler.h"

#include <gtest/gtest.h>

#include "file_util.h"

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

TEST(Compiler, AnUnknownBackendIsUnavailable) { EXPECT_THROW(open_compiler("opencl", "x"), BackendUnavailable); }

}  // namespace
}  // namespace hk
