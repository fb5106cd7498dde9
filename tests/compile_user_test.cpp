// Under root the compilers hkcheck starts run as a user of their own (compile_user.h): a kernel
// file cannot read root's files into its compile log, and a project in root's private home
// still compiles.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <gtest/gtest.h>
#include <thread>

#include "backends/host/bounded_command.h"
#include "process/compile_user.h"
#include "backends/host/host_compiler.h"
#include "backends/rtc_compile_user.h"
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

// Whether this thread may open path for reading.
bool can_open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

// NVRTC and hipRTC compile inside hkcheck: the thread that compiles reads as the compile user, and
// only that thread (and those it starts). The worker's other threads stay root.
TEST(CompileUser, ACompilingThreadReadsAsTheCompileUserAndTheOthersStayRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  test::TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec, fs::perm_options::replace);
  const std::string secret = dir.write("secret.h", "x\n"), group_only = dir.write("group.h", "x\n");
  fs::permissions(secret, fs::perms::owner_read, fs::perm_options::replace);
  fs::permissions(group_only, fs::perms::owner_read | fs::perms::group_read, fs::perm_options::replace);  // root's group
  std::promise<void> asked;
  std::promise<bool> answered;
  std::thread other([&] {
    asked.get_future().wait();
    answered.set_value(can_open(secret));
  });
  {
    host::FilesAsCompileUser as_compile_user;
    EXPECT_FALSE(can_open(secret));
    EXPECT_FALSE(can_open(group_only)) << "root's groups are left too";
    bool started = true;
    std::thread([&] { started = can_open(secret); }).join();
    EXPECT_FALSE(started) << "a thread the compile starts reads as it does";
    asked.set_value();
    EXPECT_TRUE(answered.get_future().get()) << "a thread that was running before keeps root";
  }
  other.join();
  EXPECT_TRUE(can_open(secret)) << "root again after the compile";
  // A change of file-system user makes a process undumpable: after the compile it is as it was
  // (hkcheck's own processes are not dumpable, a test binary may be).
  const int was = prctl(PR_GET_DUMPABLE);
  for (int dumpable : {1, 0}) {
    prctl(PR_SET_DUMPABLE, dumpable);
    { host::FilesAsCompileUser again; }
    EXPECT_EQ(prctl(PR_GET_DUMPABLE), dumpable);
  }
  prctl(PR_SET_DUMPABLE, was);
}

// The compile reaches a project in root's private home (an open include folder through a
// descriptor, a 0700 one through links), works in a folder of its own, and its messages name the
// folders as they were given; hkcheck's working folder is as it was after.
TEST(CompileUser, AnInProcessCompileReachesAPrivateProjectAndNamesItsFolders) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  PrivateHome home;
  const std::string open_dir = fs::path(home.dir.write("project/open/a.h", "a\n")).parent_path().string();
  const std::string private_dir = fs::path(home.dir.write("project/private/b.h", "b\n")).parent_path().string();
  fs::permissions(private_dir, fs::perms::owner_all, fs::perm_options::replace);
  const std::string secret = home.dir.write("project/open/secret.h", "s\n");
  fs::permissions(secret, fs::perms::owner_read, fs::perm_options::replace);
  const fs::path before = fs::current_path();
  const CompileRequest q{"__global__ void k() {}\n", "kernel.cu", {"-I" + open_dir, "-I", private_dir}, {"k"}};
  const CompileOutput out = compile_as_compile_user({"-I/usr/include"}, q, [&](const std::vector<std::string>& base, const CompileRequest& r) {
    CompileOutput o;
    struct stat st {};
    const std::string a = r.options[0].substr(2), b = r.options[2];
    o.ok = base == std::vector<std::string>{"-I/usr/include"} && can_open(a + "/a.h") && can_open(b + "/b.h") && !can_open(a + "/secret.h") &&
           stat(".", &st) == 0 && st.st_uid == host::kCompileUserId;
    o.log = a + "/a.h: note\n" + b + "/b.h: note\n";
    return o;
  });
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.log, open_dir + "/a.h: note\n" + private_dir + "/b.h: note\n");
  EXPECT_EQ(fs::current_path(), before);
}

// NVRTC and comgr spell "../" away ("/proc/self/fd/5/../x" becomes "/proc/self/fd/x"): a folder
// is reached through a descriptor of the topmost folder the compile user may pass down from, so
// that an include's "../../shared/x.h" still names the file it names on disk.
TEST(CompileUser, AFolderIsReachedFromTheTopOfWhatTheCompileUserMayPass) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  PrivateHome home;
  home.dir.write("project/a/b/k.h", "k\n");
  const std::string shared = home.dir.write("project/shared/x.h", "x\n");
  host::CompileAccess access;
  const std::string b = access.reach(home.dir.path() + "/project/a/b");
  ASSERT_EQ(b.rfind("/proc/self/fd/", 0), 0u) << b;
  const std::string spelled = (fs::path(b) / "../../shared/x.h").lexically_normal().string();
  EXPECT_TRUE(fs::exists(spelled)) << spelled;
  EXPECT_EQ(access.paths_in(spelled), shared);
}

}  // namespace
}  // namespace hk
