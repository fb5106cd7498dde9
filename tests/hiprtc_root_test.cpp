// Which hipRTC --compile-only uses (the option, the environment, the fetched folder, the system),
// how its compile workers are started under a root's loader, and how a hipRTC names itself.
#include "platform/hiprtc_root.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <stdexcept>
#include <sys/stat.h>

#ifdef HKCHECK_WITH_HIP
#include "backends/hiprtc_library.h"
#endif
#include "test_util.h"

namespace hk {
namespace {

// Sets an environment variable for one test, and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(HiprtcRoot, TheOptionWinsThenTheEnvironmentThenTheFetchedFolderThenTheSystem) {
  test::TempDir cache;
  ScopedEnv xdg("XDG_CACHE_HOME", cache.path().c_str());
  {
    ScopedEnv env("HKCHECK_HIPRTC_ROOT", nullptr);
    EXPECT_EQ(choose_hiprtc_root(""), "system") << "no fetched folder yet";
    cache.write("hkcheck/hiprtc/root/usr/lib/x86_64-linux-gnu/README", "");
    EXPECT_EQ(choose_hiprtc_root(""), "system") << "a folder without versions.txt is not a finished fetch";
    cache.write("hkcheck/hiprtc/versions.txt", "libhiprtc7 7.2.4-1~exp2\n");
    EXPECT_EQ(choose_hiprtc_root(""), cache.path() + "/hkcheck/hiprtc");
    EXPECT_EQ(choose_hiprtc_root("system"), "system");
  }
  ScopedEnv env("HKCHECK_HIPRTC_ROOT", "/opt/hiprtc");
  EXPECT_EQ(choose_hiprtc_root(""), "/opt/hiprtc");
  EXPECT_EQ(choose_hiprtc_root("/elsewhere"), "/elsewhere");
}

TEST(HiprtcRoot, WorkersStartUnderTheRootsOwnLoaderWithItsLibrariesFirst) {
  test::TempDir root;
  EXPECT_TRUE(hiprtc_loader_prefix("system").empty());
  // .ci/fetch-hiprtc's layout: DIR/versions.txt beside DIR/root/usr/...
  const std::string lib = root.path() + "/root/usr/lib/x86_64-linux-gnu";
  root.write("root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "");
  chmod((lib + "/ld-linux-x86-64.so.2").c_str(), 0755);
  EXPECT_EQ(hiprtc_sysroot(root.path()), root.path() + "/root");
  EXPECT_EQ(hiprtc_loader_prefix(root.path()), (std::vector<std::string>{lib + "/ld-linux-x86-64.so.2", "--library-path", lib}));
  // A plain sysroot works too.
  EXPECT_EQ(hiprtc_lib_dir(root.path() + "/root"), lib);
}

TEST(HiprtcRoot, ABrokenRootIsAnErrorNamingWhatIsMissing) {
  test::TempDir root;
  auto error_of = [](const std::string& r) {
    try {
      hiprtc_loader_prefix(r);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(root.path() + "/absent").find("is not a folder"), std::string::npos);
  EXPECT_NE(error_of(root.path()).find("usr/lib/x86_64-linux-gnu"), std::string::npos) << error_of(root.path());
  EXPECT_NE(error_of(root.path()).find(".ci/fetch-hiprtc"), std::string::npos);
  root.write("usr/lib/x86_64-linux-gnu/libhiprtc.so.7", "");
  EXPECT_NE(error_of(root.path()).find("no loader"), std::string::npos) << error_of(root.path());
  root.write("usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "");
  EXPECT_NE(error_of(root.path()).find("not executable"), std::string::npos) << error_of(root.path());
}

#ifdef HKCHECK_WITH_HIP
TEST(HiprtcLibrary, TheRealVersionComesFromTheFileNames) {
  EXPECT_EQ(version_after("libhiprtc.so.7.2.53211", "libhiprtc.so."), "7.2.53211");
  EXPECT_EQ(version_after("libamdhip64.so.5.2.21153", "libamdhip64.so."), "5.2.21153");
  EXPECT_EQ(version_after("libhiprtc.so", "libhiprtc.so."), "");
  EXPECT_EQ(version_after("libhiprtc.so.7.bak", "libhiprtc.so."), "");
  EXPECT_EQ(llvm_version_in_file_name("libLLVM-15.so.1"), "15");
  EXPECT_EQ(llvm_version_in_file_name("libLLVM.so.22.1"), "22.1");
  EXPECT_EQ(llvm_version_in_file_name("libLLVM-14.0.6.so.1"), "14.0.6");
  EXPECT_EQ(llvm_version_in_file_name("libLLVMSupport.so"), "");
  EXPECT_EQ(llvm_version_in_file_name("libz3.so.4"), "");
}

TEST(HiprtcLibrary, TheComgrAHiprtcLoadsIsNamedInItsBytes) {
  EXPECT_EQ(comgr_soname_in(std::string("\0\0libamd_comgr.so.3\0hiprtc", 26)), "libamd_comgr.so.3");
  EXPECT_EQ(comgr_soname_in("xx libamd_comgr.so. libamd_comgr.so.2\n"), "libamd_comgr.so.2");
  EXPECT_EQ(comgr_soname_in("libamd_comgr.so"), "");
}

TEST(HiprtcLibrary, NoBuiltinHeaderModeFindsClangsAndHipsHeadersUnderThePrefix) {
  test::TempDir usr;
  EXPECT_THROW(no_builtin_header_includes(usr.path(), "22"), std::runtime_error);
  usr.write("lib/llvm-21/lib/clang/21/include/__clang_hip_runtime_wrapper.h", "");
  usr.write("lib/llvm-22/lib/clang/22/include/__clang_hip_runtime_wrapper.h", "");
  try {
    no_builtin_header_includes(usr.path(), "22");
    ADD_FAILURE() << "no HIP headers: an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("include/hip/hip_runtime.h"), std::string::npos) << e.what();
  }
  usr.write("include/hip/hip_runtime.h", "");
  const std::string p = usr.path();
  EXPECT_EQ(no_builtin_header_includes(p, "21"),
            (std::vector<std::string>{"-isystem", p + "/lib/llvm-21/lib/clang/21/include", "-I" + p + "/include", "-I" + p + "/include/hip"}));
  EXPECT_EQ(no_builtin_header_includes(p, "")[1], p + "/lib/llvm-22/lib/clang/22/include") << "the newest when comgr's LLVM is unknown";
}

// The system's hipRTC (Debian bookworm's 5.2.3 here) by its real name, not hiprtcVersion's "9.0".
TEST(HiprtcLibrary, TheSystemsHiprtcNamesItsRealVersionComgrAndLlvm) {
  HiprtcLibrary h;
  try {
    h = open_hiprtc_library("system");
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  EXPECT_EQ(h.label.rfind("hipRTC ", 0), 0u) << h.label;
  EXPECT_EQ(h.label.find("9.0"), std::string::npos) << h.label;
  EXPECT_NE(h.label.find("(comgr "), std::string::npos) << h.label;
  EXPECT_FALSE(h.prefix.empty());
}

TEST(HiprtcLibrary, AnEmptyRootIsAnErrorNotACrash) {
  test::TempDir root;
  root.write("usr/lib/x86_64-linux-gnu/README", "");
  try {
    open_hiprtc_library(root.path());
    ADD_FAILURE() << "opened a hipRTC from an empty folder";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("has no libhiprtc.so.7"), std::string::npos) << e.what();
  }
}
#endif

}  // namespace
}  // namespace hk
