// Resources read from compiled code with no GPU: a known small kernel for each vendor, the
// target table's arithmetic, and bytes that are not a code object.
#include "code_object_resources.h"

#include <gtest/gtest.h>

#include "compiler.h"
#include "targets.h"

namespace hk {
namespace {

const char* kKernel = R"(extern "C" __global__ void k(float* y, const float* x, int n) {
  __shared__ float buf[1024];
  buf[threadIdx.x] = x[threadIdx.x % n];
  __syncthreads();
  y[threadIdx.x] = buf[(threadIdx.x + 1) % 1024] * buf[(threadIdx.x * 7) % 1024];
}
)";

std::unique_ptr<Compiler> open_or_null(const std::string& backend, const std::string& arch, std::string* why) {
  try {
    return open_compiler(backend, arch);
  } catch (const BackendUnavailable& e) {
    *why = e.what();
    return nullptr;
  }
}

TEST(CodeObjectResources, CubinOfAKnownKernel) {
  std::string why;
  auto c = open_or_null("cuda", "sm_90", &why);
  if (!c) GTEST_SKIP() << why;
  const CompileOutput out = c->compile({kKernel, "k.cu", {"--ptxas-options=-v"}, {"k"}});
  ASSERT_TRUE(out.ok) << out.log;
  const auto r = cubin_resources(out.binary, out.symbols.at("k"), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->static_shared_bytes, 4096);
  EXPECT_GT(r->registers, 0);
  EXPECT_LE(r->registers, 255);
  EXPECT_EQ(r->local_bytes, 0);
  KernelResources from_log;
  add_ptxas_figures(out.log, "k", from_log);
  EXPECT_EQ(from_log.static_shared_bytes, 4096) << "the assembler's own figure agrees: " << out.log;
  EXPECT_EQ(from_log.spilled, 0);
  EXPECT_FALSE(cubin_resources(out.binary, "no_such_kernel", &why));
}

TEST(CodeObjectResources, AmdCodeObjectOfAKnownKernel) {
  std::string why;
  auto c = open_or_null("hip", "gfx90a", &why);
  if (!c) GTEST_SKIP() << why;
  const CompileOutput out = c->compile({kKernel, "k.hip", {}, {"k"}});
  ASSERT_TRUE(out.ok) << out.log;
  const auto r = amdgpu_resources(out.binary, out.symbols.at("k"), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->static_shared_bytes, 4096);
  EXPECT_EQ(r->wavefront, 64);
  EXPECT_GT(r->registers, 0);
  EXPECT_GT(r->sgprs, 0);
  EXPECT_EQ(r->max_threads_per_block, 1024);
}

TEST(CodeObjectResources, GarbageAndTruncatedInputAreErrorsNotCrashes) {
  std::string why;
  EXPECT_FALSE(cubin_resources("", "k", &why));
  EXPECT_FALSE(cubin_resources("not an elf at all, just text", "k", &why));
  std::string elf_head = std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(57, '\xff');  // offsets past the end
  EXPECT_FALSE(cubin_resources(elf_head, "k", &why));
  EXPECT_FALSE(amdgpu_resources(elf_head, "k", &why));
  std::string why2;
  auto c = open_or_null("cuda", "sm_90", &why2);
  if (!c) return;
  const CompileOutput out = c->compile({kKernel, "k.cu", {}, {"k"}});
  ASSERT_TRUE(out.ok);
  for (size_t cut : {size_t{64}, out.binary.size() / 2, out.binary.size() - 1}) {
    std::string torn = out.binary.substr(0, cut);
    (void)cubin_resources(torn, "k", &why);  // any answer but a crash
  }
}

TEST(Targets, RegistersBoundTheBlockAsEachVendorAllocatesThem) {
  const Target& h100 = *find_target("sm_90");
  EXPECT_EQ(max_threads_for_registers(h100, 32), 1024);
  EXPECT_EQ(max_threads_for_registers(h100, 128), 512);  // 128 x 32 = 4096 per warp: 16 warps
  EXPECT_EQ(max_threads_for_registers(h100, 255), 256);  // 255 -> 8192 per warp: 8 warps
  const Target& mi = *find_target("gfx942");
  EXPECT_EQ(max_threads_for_registers(mi, 128), 1024);  // 4 waves per SIMD x 4 SIMDs x 64
  EXPECT_EQ(max_threads_for_registers(mi, 256), 512);
  EXPECT_EQ(mi.shared_per_block_optin, 65536);
  EXPECT_EQ(find_target("sm_90")->shared_per_block_optin, 232448);
  EXPECT_EQ(find_target("sm_7x"), nullptr);
}

}  // namespace
}  // namespace hk
