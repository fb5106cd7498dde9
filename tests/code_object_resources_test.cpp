// Resources read from compiled code with no GPU: a known small kernel for each vendor, the
// target table's arithmetic, and bytes that are not a code object.
#include "contracts/code_object_resources.h"

#include <cstring>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/compiler.h"
#include "platform/targets.h"

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

// A 64-bit ELF file holding only an NT_AMDGPU_METADATA note with this msgpack metadata.
std::string code_object_with_metadata(const nlohmann::json& meta) {
  const std::vector<uint8_t> desc = nlohmann::json::to_msgpack(meta);
  const std::string names = std::string("\0.shstrtab\0.note\0", 17);
  auto put = [](std::string& b, uint64_t at, uint64_t v, size_t n) { std::memcpy(&b[at], &v, n); };
  std::string note(12, '\0');
  put(note, 0, 7, 4);  // "AMDGPU\0"
  put(note, 4, desc.size(), 4);
  put(note, 8, 32, 4);
  note += std::string("AMDGPU\0\0", 8) + std::string(desc.begin(), desc.end());
  note.resize((note.size() + 3) & ~size_t{3});
  std::string elf(64, '\0');
  std::memcpy(&elf[0], "\x7f" "ELF\x02\x01\x01", 7);
  const uint64_t names_at = 64, note_at = names_at + names.size(), sh_at = (note_at + note.size() + 7) & ~uint64_t{7};
  elf += names + note;
  elf.resize(sh_at + 3 * 64, '\0');
  put(elf, 0x28, sh_at, 8);
  put(elf, 0x3a, 64, 2);
  put(elf, 0x3c, 3, 2);
  put(elf, 0x3e, 1, 2);
  auto section = [&](int i, uint32_t name, uint32_t type, uint64_t off, uint64_t size) {
    const uint64_t h = sh_at + i * 64;
    put(elf, h, name, 4);
    put(elf, h + 4, type, 4);
    put(elf, h + 24, off, 8);
    put(elf, h + 32, size, 8);
  };
  section(1, 1, 3, names_at, names.size());  // .shstrtab
  section(2, 11, 7, note_at, note.size());   // .note, SHT_NOTE
  return elf;
}

// What an MFMA kernel's metadata says on gfx942 (measured with hipRTC 7.2.4): .vgpr_count is the
// VGPRs (256) and AGPRs (242) together, the one file of 512 per lane both come from.
TEST(CodeObjectResources, AmdMetadataGivesAgprsInsideTheRegisterCount) {
  const nlohmann::json kernel = {{".name", "mfma"}, {".symbol", "mfma.kd"}, {".vgpr_count", 498}, {".agpr_count", 242},
                                 {".sgpr_count", 14}, {".group_segment_fixed_size", 2048}, {".private_segment_fixed_size", 16},
                                 {".wavefront_size", 64}, {".max_flat_workgroup_size", 256}, {".vgpr_spill_count", 0},
                                 {".sgpr_spill_count", 0}};
  const std::string co = code_object_with_metadata({{"amdhsa.version", {1, 2}}, {"amdhsa.kernels", {kernel}}});
  std::string why;
  const auto r = amdgpu_resources(co, "mfma", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->registers, 498);
  EXPECT_EQ(r->agprs, 242);
  EXPECT_EQ(r->sgprs, 14);
  EXPECT_EQ(r->static_shared_bytes, 2048);
  EXPECT_EQ(r->local_bytes, 16);
  EXPECT_EQ(r->wavefront, 64);
  EXPECT_EQ(r->max_threads_per_block, 256);
  EXPECT_EQ(r->spilled, 0);
  // The figures cross from the compile worker to hkcheck as JSON and come back whole.
  const KernelResources back = nlohmann::json(*r).get<KernelResources>();
  EXPECT_EQ(back.agprs, 242);
  EXPECT_EQ(back.registers, 498);
  EXPECT_EQ(back.max_threads_per_block, 256);
  // 498 of 512 per lane: one wave per SIMD, four SIMDs, 256 threads.
  EXPECT_EQ(max_threads_for_registers(*find_target("gfx942"), r->registers), 256);
  EXPECT_FALSE(amdgpu_resources(co, "other", &why));
  EXPECT_NE(why.find("no kernel 'other'"), std::string::npos) << why;
  // Metadata without .agpr_count (older compilers) leaves it unknown, not zero.
  nlohmann::json old = kernel;
  old.erase(".agpr_count");
  const auto r_old = amdgpu_resources(code_object_with_metadata({{"amdhsa.kernels", {old}}}), "mfma", &why);
  ASSERT_TRUE(r_old) << why;
  EXPECT_EQ(r_old->agprs, -1);
}

// The real compiler says the same of a kernel whose accumulators need AGPRs: .vgpr_count counts
// them. The system's hipRTC compiles gfx90a, which shares the register file as gfx942 does.
TEST(CodeObjectResources, AmdMfmaKernelCountsItsAgprsInItsRegisters) {
  const char* mfma = R"(typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
extern "C" __global__ void __launch_bounds__(256) mfma(float* out, const _Float16* a, int iters) {
  half4 x[20];
  for (int j = 0; j < 20; ++j) for (int i = 0; i < 4; ++i) x[j][i] = a[threadIdx.x * 80 + j * 4 + i];
  float16v acc[20] = {};
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 20; ++j) acc[j] = __builtin_amdgcn_mfma_f32_32x32x8f16(x[j], x[(j + 1) % 20], acc[j], 0, 0, 0);
#pragma unroll
  for (int j = 0; j < 20; ++j) for (int i = 0; i < 16; ++i) out[threadIdx.x * 320 + j * 16 + i] = acc[j][i];
}
)";
  std::string why;
  auto c = open_or_null("hip", "gfx90a", &why);
  if (!c) GTEST_SKIP() << why;
  const CompileOutput out = c->compile({mfma, "mfma.hip", {}, {"mfma"}});
  ASSERT_TRUE(out.ok) << out.log;
  const auto r = amdgpu_resources(out.binary, out.symbols.at("mfma"), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_GT(r->agprs, 200) << "320 accumulators per lane do not fit 256 VGPRs";
  EXPECT_GE(r->registers, r->agprs + 200) << "the VGPRs come on top of the AGPRs";
  EXPECT_LE(r->registers, 512);
  EXPECT_EQ(r->max_threads_per_block, 256);
  EXPECT_EQ(max_threads_for_registers(*find_target("gfx90a"), r->registers), 256);
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
