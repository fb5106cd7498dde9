// Under root the compilers hkcheck starts run as a user of their own (compile_user.h): a kernel
// file cannot read root's files into its compile log, and a project in root's private home
// still compiles.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <gtest/gtest.h>

#include "backends/host/bounded_command.h"
#include "backends/host/compile_user.h"
#include "backends/host/host_compiler.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

// A folder only root may enter, as /root is.
struct PrivateHome {
  test::TempDir dir;
  PrivateHome() { fs::permissions(dir.path(), fs::perms::owner_all, fs::perm_options::replace); }
};

host::HostCompileResult compile(const std::string& source, const std::vector<std::string>& options) {
  return host::compile_shared_library(host::find_compiler(), source, "kernel.cu", options, {}, 32, "", "", false);
}

TEST(CompileUser, AKernelCannotIncludeRootsFilesIntoItsLog) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  PrivateHome home;
  const std::string secret = home.dir.write("secret/token.h", "not C++ at all: XYZZY-token\n");
  fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  const host::HostCompileResult r = compile("#include \"" + secret + "\"\n__global__ void k() {}\n", {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("Permission denied"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("uid 65533"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("XYZZY"), std::string::npos) << r.log;
}

TEST(CompileUser, AProjectInRootsPrivateHomeStillCompiles) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  PrivateHome home;
  const std::string header = home.dir.write("project/include/twice.h", "__device__ inline float twice(float v) { return 2 * v; }\n");
  const host::HostCompileResult r =
      compile("#include \"twice.h\"\n__global__ void k(float* x) { x[0] = twice(x[0]); }\n", {"-I" + fs::path(header).parent_path().string()});
  EXPECT_TRUE(r.ok) << r.log;
  // A message names the header by its own path, not by the descriptor the compiler reached it through.
  const host::HostCompileResult bad =
      compile("#include \"twice.h\"\n__global__ void k(float* x) { x[0] = twice(x); }\n", {"-I" + fs::path(header).parent_path().string()});
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.log.find("/proc/self/fd"), std::string::npos) << bad.log;
}

TEST(CompileUser, TheCompilerRunsAsItsOwnUserAndOtherCommandsDoNot) {
  test::TempDir dir;
  const host::CommandRun as_compiler = host::run_bounded({"id", "-u"}, dir.path() + "/compiler.log", 10, {{}, "", true});
  const host::CommandRun plain = host::run_bounded({"id", "-u"}, dir.path() + "/plain.log", 10);
  ASSERT_EQ(as_compiler.exit_code, 0) << as_compiler.output;
  const std::string own = std::to_string(geteuid()) + "\n";
  EXPECT_EQ(as_compiler.output, geteuid() == 0 ? std::to_string(host::kCompileUserId) + "\n" : own);
  EXPECT_EQ(plain.output, own);
}

TEST(CompileUser, ACompilersOutputReachesARootOnlyFolder) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  PrivateHome home;
  const std::string source = home.dir.write("m.cpp", "int main() { return 0; }\n");
  const std::string out = home.dir.path() + "/lib/m.o";
  fs::create_directories(fs::path(out).parent_path());
  const host::CommandRun r = host::run_command_into({host::find_compiler().path, "-c", source}, out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);  // moved into place by root, owned by root
}

}  // namespace
}  // namespace hk
