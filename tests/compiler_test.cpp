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
  const CompileOutput out = c->compile(read_file(kRmsnorm), kRmsnorm, {"-DT=bf16"});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_TRUE(is_elf(out.binary)) << "a cubin / code object is an ELF file";
  const CompileOutput bad = c->compile("#include \"hkcheck.h\"\nHK_KERNEL void k(f32* o) { o[0] = ; }\n", "bad.cu", {});
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

TEST(Compiler, AnUnknownBackendIsUnavailable) { EXPECT_THROW(open_compiler("opencl", "x"), BackendUnavailable); }

}  // namespace
}  // namespace hk
