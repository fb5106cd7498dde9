// --compile-only for AMD targets with a private hipRTC (.ci/fetch-hiprtc, --hiprtc-root) or the
// system's: the rows name the real compiler, a broken root is an error in the rows and never a
// crash, the no-builtin-header mode, and AGPRs. tests/fixtures/amd_compile holds the kernels; it
// is for compiling only (its mfma kernel's reference is a placeholder).
#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "util/file_util.h"
#include "process/subprocess.h"
#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

#ifdef HKCHECK_WITH_HIP

// The root CMake found when it configured the tests; CI requires one (HKCHECK_REQUIRE_ALL_BACKENDS).
#ifdef HKCHECK_TEST_HIPRTC_ROOT
const std::string kRoot = HKCHECK_TEST_HIPRTC_ROOT;
#else
const std::string kRoot;
#endif
#define NEEDS_PRIVATE_HIPRTC() \
  if (kRoot.empty()) GTEST_SKIP() << "no hipRTC root when the tests were configured: run .ci/fetch-hiprtc"

struct AmdCompileOnly : ::testing::Test {
  test::TempDir dir;
  int run(const std::string& manifests, const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {HKCHECK_PATH, "--compile-only", "--manifests", manifests, "--out", dir.path() + "/out"};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, 3, env);
    EXPECT_TRUE(p.wait_for(std::chrono::seconds(300))) << p.output_tail(4000);
    const ExitStatus st = p.wait();
    EXPECT_TRUE(st.exited) << st.describe() << "\n" << p.output_tail(4000);
    return st.code;
  }
  int run_repo(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    return run(std::string(REPO_DIR) + "/manifests", args, env);
  }
  int run_fixture(const std::vector<std::string>& args) { return run(std::string(REPO_DIR) + "/tests/fixtures/amd_compile", args); }
  json results() { return json::parse(read_file(dir.path() + "/out/test_results.json")); }
  // Every row's message must hold `text`, and the row must be an ERROR (no compiler), not a crash.
  void expect_error_rows(const std::string& text) {
    const json r = results();
    ASSERT_FALSE(r["cases"].empty());
    for (const json& c : r["cases"]) {
      EXPECT_EQ(c["status"], "ERROR") << c.dump();
      EXPECT_NE(c["message"].get<std::string>().find("no hip compiler for gfx942: "), std::string::npos) << c.dump();
      EXPECT_NE(c["message"].get<std::string>().find(text), std::string::npos) << c.dump();
    }
  }
};

// A copy of the private root made of links, less the libraries whose names start with `without`.
std::string root_without(const std::string& where, const std::string& without) {
  const std::string lib = "/root/usr/lib/x86_64-linux-gnu";
  const fs::path real = fs::exists(kRoot + "/root/usr") ? fs::path(kRoot + lib) : fs::path(kRoot + "/usr/lib/x86_64-linux-gnu");
  fs::create_directories(where + lib);
  for (const auto& e : fs::directory_iterator(real))
    if (e.path().filename().string().rfind(without, 0) != 0) fs::create_symlink(e.path(), where + lib + "/" + e.path().filename().string());
  return where;
}

TEST_F(AmdCompileOnly, AnEmptyRootIsAnErrorInTheRows) {
  fs::create_directories(dir.path() + "/empty");
  EXPECT_EQ(run_repo({"--arch", "gfx942", "--hiprtc-root", dir.path() + "/empty", "rmsnorm"}), 1);
  expect_error_rows("has no " + dir.path() + "/empty/usr/lib/x86_64-linux-gnu");
}

TEST_F(AmdCompileOnly, ARootWhoseLoaderWillNotStartIsAnErrorNamingIt) {
  const std::string loader = dir.write("bad/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "not a program\n");
  chmod(loader.c_str(), 0755);
  EXPECT_EQ(run_repo({"--arch", "gfx942", "--hiprtc-root", dir.path() + "/bad", "rmsnorm"}), 1);
  expect_error_rows(loader);
}

// hipRTC loads comgr only when it first compiles and, when comgr cannot load, calls a null
// pointer: the worker loads comgr first and names what is missing, comgr itself or a library of it.
TEST_F(AmdCompileOnly, ARootMissingComgrOrLlvmNamesTheFile) {
  NEEDS_PRIVATE_HIPRTC();
  for (const std::string missing : {"libamd_comgr", "libLLVM"}) {
    const std::string root = root_without(dir.path() + "/no_" + missing, missing);
    EXPECT_EQ(run_repo({"--arch", "gfx942", "--hiprtc-root", root, "rmsnorm"}), 1) << missing;
    expect_error_rows(missing);
    expect_error_rows("cannot open shared object file");
  }
}

// The compiler a compile-only run names for arch, from its device's runtime_version
// ("gfx942: hipRTC 7.2.53211 (...); gfx950: ..."); "" when it names none.
std::string compiler_of(const json& results, const std::string& arch) {
  const std::string all = results["run"]["device"].value("runtime_version", "");
  const size_t at = all.find(arch + ": ");
  if (at == std::string::npos) return "";
  const size_t from = at + arch.size() + 2, end = all.find("; ", from);
  return all.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

// hiprtcVersion() says 9.0 for ROCm 5.2, 6.4 and 7.2 alike: rows and the run name the library's
// real version, comgr's and LLVM's.
TEST_F(AmdCompileOnly, RowsAndTheRunNameTheRealCompiler) {
  NEEDS_PRIVATE_HIPRTC();
  EXPECT_EQ(run_repo({"--arch", "gfx942", "--hiprtc-root", kRoot, "rmsnorm"}), 0);
  json r = results();
  const std::string mine = compiler_of(r, "gfx942");
  EXPECT_EQ(mine.rfind("hipRTC ", 0), 0u) << mine;
  EXPECT_EQ(mine.find("9.0"), std::string::npos) << mine;
  EXPECT_NE(mine.find("(comgr "), std::string::npos) << mine;
  EXPECT_NE(mine.find(", LLVM "), std::string::npos) << mine;
  EXPECT_NE(r["run"]["device"].value("runtime_version", "").find("gfx942: " + mine), std::string::npos) << r["run"]["device"].dump();
  for (const json& c : r["cases"]) EXPECT_NE(c["message"].get<std::string>().find("compiled with " + mine), std::string::npos) << c.dump();
  EXPECT_EQ(run_repo({"--arch", "gfx90a", "--hiprtc-root", "system", "rmsnorm"}), 0);
  r = results();
  const std::string systems = compiler_of(r, "gfx90a");
  EXPECT_EQ(systems.rfind("hipRTC ", 0), 0u) << systems;
  EXPECT_NE(systems, mine) << "the system's hipRTC is another compiler";
}

// Comgr's own cache (hipRTC 6 and later) goes in hkcheck's cache folder, and --no-cache turns it off
// rather than leaving it in ~/.cache/comgr.
TEST_F(AmdCompileOnly, ComgrsCacheFollowsHkchecksCacheFolder) {
  NEEDS_PRIVATE_HIPRTC();
  const std::vector<std::string> home = {"XDG_CACHE_HOME=" + dir.path() + "/xdg"};
  EXPECT_EQ(run_repo({"--arch", "gfx942", "--hiprtc-root", kRoot, "--cache-dir", dir.path() + "/cache", "rmsnorm"}, home), 0);
  EXPECT_FALSE(fs::is_empty(dir.path() + "/cache/comgr"));
  EXPECT_EQ(run_repo({"--arch", "gfx942", "--hiprtc-root", kRoot, "--no-cache", "rmsnorm"}, home), 0);
  EXPECT_FALSE(fs::exists(dir.path() + "/xdg/comgr"));
}

// The fixture's kernel keeps most of its accumulators in AGPRs and allows 256 threads; its
// configuration launches up to 512.
TEST_F(AmdCompileOnly, AgprsAreReportedAndTheBlockIsJudgedByWhatTheCodeAllows) {
  NEEDS_PRIVATE_HIPRTC();
  EXPECT_EQ(run_fixture({"--arch", "gfx942", "--hiprtc-root", kRoot, "mfma_agprs"}), 3) << "every row skipped";
  const json r = results();
  ASSERT_EQ(r["cases"].size(), 1u);
  const json& c = r["cases"][0];
  EXPECT_EQ(c["reason"], "HW_LIMIT") << c.dump();
  EXPECT_NE(c["message"].get<std::string>().find("max flat workgroup size): requested 512, gfx942 limit 256, over by 256"), std::string::npos) << c.dump();
  const int64_t agprs = c["resources"].value("agprs", -1), regs = c["resources"].value("registers", -1);
  EXPECT_GT(agprs, 200) << c.dump();
  EXPECT_GE(regs, agprs + 200) << "the register count holds the VGPRs and the AGPRs: " << c.dump();
  EXPECT_LE(regs, 512) << c.dump();
  EXPECT_NE(c["notes"].dump().find(" AGPRs)"), std::string::npos) << c.dump();
}

// A struct argument is checked against the parameters of the AMD code object's metadata, where
// no AMD GPU is: the example's twin that forgets the empty members is an ERROR naming both sizes.
TEST_F(AmdCompileOnly, StructArgumentsAreCheckedAgainstTheCodeObjectsParameters) {
  NEEDS_PRIVATE_HIPRTC();
  run(std::string(REPO_DIR) + "/examples/struct_args_project/manifests", {"--arch", "gfx942,gfx950", "--hiprtc-root", kRoot});
  const json r = results();
  ASSERT_EQ(r["cases"].size(), 4u) << r.dump();
  for (const json& c : r["cases"]) {
    const std::string msg = c["message"];
    if (c["kernel"] == "scaled_rows") {
      EXPECT_EQ(c["status"], "PASS") << c.dump();
      EXPECT_EQ(c["resources"]["param_bytes"], json::array({120})) << c.dump();
    } else {
      EXPECT_EQ(c["status"], "ERROR") << c.dump();
      EXPECT_NE(msg.find("the manifest's arguments do not fit scaled_rows's parameters"), std::string::npos) << msg;
      EXPECT_NE(msg.find("struct of 96 bytes"), std::string::npos) << msg;
      EXPECT_NE(msg.find("does not match the kernel's parameter 0, 120 bytes"), std::string::npos) << msg;
    }
  }
}

// hkcheck adds the clang and HIP header folders of the root, and hip_runtime.h before its own
// prelude, which the no-builtin-header mode leaves to the source.
TEST_F(AmdCompileOnly, NoBuiltinHeaderModeCompilesACorpusKernel) {
  NEEDS_PRIVATE_HIPRTC();
  EXPECT_EQ(run_fixture({"--arch", "gfx942,gfx950", "--hiprtc-root", kRoot, "rmsnorm_no_builtin_header"}), 0);
  const json r = results();
  EXPECT_EQ(r["cases"].size(), 6u);
  for (const json& c : r["cases"]) EXPECT_EQ(c["status"], "PASS") << c.dump();
}

// Host code behind #ifndef __HIPCC_RTC__ and behind #ifndef __HIP_DEVICE_COMPILE__ compiles in
// both hipRTC modes: hipRTC 7.2 leaves __HIPCC_RTC__ undefined without its built-in header, and
// the device-part parse, which defined it always, kept the host code out of its own view.
TEST_F(AmdCompileOnly, HostCodeGuardsHoldInBothHeaderModes) {
  NEEDS_PRIVATE_HIPRTC();
  EXPECT_EQ(run_fixture({"--arch", "gfx942,gfx950", "--hiprtc-root", kRoot, "host_code_guards_*"}), 0);
  const json r = results();
  EXPECT_EQ(r["cases"].size(), 4u);
  for (const json& c : r["cases"]) EXPECT_EQ(c["status"], "PASS") << c.dump();
}

// The generator that makes inputs on the GPU (device_inputs.h) builds for the users' AMD targets.
TEST_F(AmdCompileOnly, InputGeneratorCompilesForGfx942AndGfx950) {
  NEEDS_PRIVATE_HIPRTC();
  EXPECT_EQ(run_fixture({"--arch", "gfx942,gfx950", "--hiprtc-root", kRoot, "input_generator"}), 0);
  const json r = results();
  EXPECT_EQ(r["cases"].size(), 2u);
  for (const json& c : r["cases"]) EXPECT_EQ(c["status"], "PASS") << c.dump();
}

TEST_F(AmdCompileOnly, NoBuiltinHeaderModeOnHiprtc5IsACompileErrorSayingSo) {
  const int rc = run_fixture({"--arch", "gfx90a", "--hiprtc-root", "system", "rmsnorm_no_builtin_header"});
  const json r = results();
  if (compiler_of(r, "gfx90a").rfind("hipRTC 5.", 0) != 0)
    GTEST_SKIP() << "the system's hipRTC is not ROCm 5's: " << r["run"]["device"].dump();
  EXPECT_EQ(rc, 1);
  for (const json& c : r["cases"]) {
    EXPECT_EQ(c["status"], "COMPILE_ERROR") << c.dump();
    EXPECT_NE(c["message"].get<std::string>().find("has no --hiprtc-no-builtin-header mode"), std::string::npos) << c.dump();
  }
}

#endif

}  // namespace
}  // namespace hk
