// --compile-only end to end: targets compiled with no device, and a compiler that aborts (Debian's
// hipRTC for gfx942) costing one compile, reported, while hkcheck goes on.
#include <chrono>
#include <cstdlib>
#include <thread>
#include <filesystem>
#include <csignal>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "util/file_util.h"
#include "process/subprocess.h"
#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;

struct CompileOnly : ::testing::Test {
  test::TempDir dir;
  int run(const std::vector<std::string>& args, const std::string& manifests = std::string(REPO_DIR) + "/manifests") {
    std::vector<std::string> argv = {HKCHECK_PATH, "--compile-only", "--manifests", manifests, "--out", dir.path()};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, 3);
    EXPECT_TRUE(p.wait_for(std::chrono::seconds(120))) << p.output_tail(4000);
    const ExitStatus st = p.wait();
    EXPECT_TRUE(st.exited) << st.describe() << "\n" << p.output_tail(4000);
    return st.code;
  }
  json results() { return json::parse(read_file(dir.path() + "/test_results.json")); }
};

// The two below need both vendors' compilers, which CI always builds; a machine without the CUDA
// toolkit builds no NVRTC target.
#if defined(HKCHECK_WITH_CUDA) && defined(HKCHECK_WITH_HIP)
TEST_F(CompileOnly, OneResultPerConfigurationAndTarget) {
  EXPECT_EQ(run({"--arch", "sm_90,gfx90a", "rmsnorm"}), 0);
  const json r = results();
  EXPECT_EQ(r["run"]["spec"]["backend"], "compile-only");
  std::set<std::string> names;
  for (const json& c : r["cases"]) {
    EXPECT_EQ(c["status"], "PASS") << c.dump();
    names.insert(c["case"].get<std::string>());
  }
  // rmsnorm's cases use three element types: one compile each, per target.
  EXPECT_EQ(names, (std::set<std::string>{"sm_90 T=f32", "sm_90 T=f16", "sm_90 T=bf16", "gfx90a T=f32", "gfx90a T=f16", "gfx90a T=bf16"}));
}

TEST_F(CompileOnly, ACompilerThatAbortsCostsThatCompileOnly) {
  // The system's hipRTC: Debian bookworm's aborts for gfx942 (the fetched one compiles it).
  const int rc = run({"--arch", "gfx942", "--arch", "sm_90", "--hiprtc-root", "system", "rmsnorm"});
  EXPECT_TRUE(rc == 0 || rc == 1) << rc;
  const json r = results();
  ASSERT_EQ(r["cases"].size(), 6u);
  for (const json& c : r["cases"]) {
    if (c["params"]["arch"] == "sm_90") EXPECT_EQ(c["status"], "PASS") << c.dump();
    else if (c["status"] != "PASS")  // the hipRTC of Debian aborts for gfx942; a newer one compiles
      EXPECT_NE(c["message"].get<std::string>().find("the compiler crashed"), std::string::npos) << c.dump();
  }
}

// rmsnorm and fused_add_rmsnorm share a file: one compile per configuration serves both, and each
// row still gets its own entry's figures.
TEST_F(CompileOnly, KernelsOfOneFileShareOneCompilePerConfiguration) {
  EXPECT_EQ(run({"--arch", "sm_90", "--jobs", "1", "rmsnorm", "fused_add_rmsnorm"}), 0);  // one at a time: no compile twice at once
  int shared = 0, rows = 0;
  const json r = results();
  for (const json& c : r["cases"]) {
    ++rows;
    EXPECT_EQ(c["status"], "PASS") << c.dump();
    EXPECT_NE(c["message"].get<std::string>().find("registers"), std::string::npos) << c.dump();
    for (const json& n : c["notes"]) shared += n.get<std::string>().find("compiled once for every kernel of its file") != std::string::npos;
  }
  EXPECT_EQ(rows, 6);
  EXPECT_EQ(shared, 3) << "one of the two kernels of each of the three configurations reuses the other's compile";
}

// example_scale_rows and example_row_max share broken.cu, where only row_max is broken: one compile
// answers both (the file, then each kernel alone), and each row says its own words whichever
// kernel asked first (--jobs 1: always scale_rows) and however many compile at once: row_max its
// error, scale_rows that it compiled.
TEST_F(CompileOnly, EachKernelOfABrokenFileGetsItsOwnMessage) {
  const std::string manifests = std::string(REPO_DIR) + "/examples/kernel_project/manifests";
  for (const char* jobs : {"1", "2", "2", "2"}) {
    EXPECT_EQ(run({"--arch", "sm_90", "--jobs", jobs, "example_scale_rows", "example_row_max"}, manifests), 0) << "row_max is expected not to compile";
    std::map<std::string, std::string> messages;
    const json r = results();
    for (const json& c : r["cases"]) messages[c["kernel"].get<std::string>()] = c["status"].get<std::string>() + ": " + c.value("message", "");
    ASSERT_EQ(messages.size(), 2u) << "--jobs " << jobs;
    EXPECT_EQ(messages["example_row_max"].rfind("XFAIL: row_max does not compile:", 0), 0u) << "--jobs " << jobs << ": " << messages["example_row_max"];
    EXPECT_NE(messages["example_row_max"].find("compiled alone"), std::string::npos) << messages["example_row_max"];
    EXPECT_EQ(messages["example_scale_rows"].rfind("PASS: compiled with", 0), 0u) << "--jobs " << jobs << ": " << messages["example_scale_rows"];
  }
}

// 160,000 bytes of shared memory is over gfx90a's 64 KiB: HW_LIMIT, and the row still says that
// the source compiled and what it needs.
TEST_F(CompileOnly, AHardwareLimitStillSaysTheSourceCompiled) {
  EXPECT_EQ(run({"--arch", "gfx90a,sm_90", "ff_fused_gated"}), 0);
  const json r = results();
  ASSERT_FALSE(r["cases"].empty());
  for (const json& c : r["cases"]) {
    if (c["params"]["arch"] == "sm_90") {
      EXPECT_EQ(c["status"], "PASS") << c.dump();
      continue;
    }
    EXPECT_EQ(c["status"], "SKIP") << c.dump();
    EXPECT_EQ(c["reason"], "HW_LIMIT") << c.dump();
    EXPECT_NE(c["message"].get<std::string>().find("requested 160000, " + c["params"]["arch"].get<std::string>() + " limit 65536, over by 94464"), std::string::npos) << c.dump();
    ASSERT_FALSE(c["notes"].empty()) << c.dump();
    EXPECT_NE(c["notes"][0].get<std::string>().find("compiled with hipRTC"), std::string::npos) << c.dump();
  }
}

// A second run with the same cache folder reads every compile back (the compile cache of a run,
// keyed by compiler, target, options and sources) with the same verdicts and figures; the figures
// are read from the cached code again. --no-cache compiles afresh.
TEST_F(CompileOnly, ASecondRunReadsItsCompilesFromTheCache) {
  test::TempDir cache;
  auto rows = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--arch", "sm_90,gfx90a", "--hiprtc-root", "system", "--jobs", "1", "rmsnorm"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(run(args), 0);
    std::map<std::string, std::pair<std::string, bool>> out;  // case -> message, read from the cache
    const json r = results();
    for (const json& c : r["cases"]) {
      bool noted = false;
      for (const json& n : c["notes"]) noted |= n.get<std::string>().find("read from the compile cache") != std::string::npos;
      EXPECT_EQ(noted, c["timings_ms"]["compile_cached"].get<bool>()) << c.dump();
      out[c["case"].get<std::string>()] = {c["message"].get<std::string>(), noted};
    }
    return out;
  };
  const auto first = rows({"--cache-dir", cache.path()});
  const auto second = rows({"--cache-dir", cache.path()});
  const auto fresh = rows({"--no-cache"});
  ASSERT_EQ(first.size(), 6u);
  ASSERT_EQ(second.size(), first.size());
  for (const auto& [name, row] : first) {
    EXPECT_FALSE(row.second) << name << ": the cache was empty";
    EXPECT_NE(row.first.find("registers"), std::string::npos) << name << ": " << row.first;
    EXPECT_EQ(second.at(name).first, row.first) << name;
    EXPECT_TRUE(second.at(name).second) << name;
    EXPECT_EQ(fresh.at(name).first, row.first) << name;
    EXPECT_FALSE(fresh.at(name).second) << name;
  }
}

// A CUDA-only and a HIP-only kernel, and one whose source #errors unless its own target's defines
// reach it (tests/fixtures/manifest_targets): each vendor's kernel compiles for its targets, is
// SKIP NOT_FOR_VENDOR for the other's, and the per-target kernel compiles for both.
TEST_F(CompileOnly, EachTargetGetsItsOwnKernelsAndDefines) {
  EXPECT_EQ(run({"--arch", "sm_90,gfx90a"}, std::string(REPO_DIR) + "/tests/fixtures/manifest_targets/manifests"), 0);
  std::map<std::string, std::string> verdicts;  // "kernel arch" -> "STATUS REASON: message"
  const json cases = results()["cases"];
  EXPECT_EQ(cases.size(), 6u) << "one configuration per kernel and target";
  for (const json& c : cases)
    verdicts[c["kernel"].get<std::string>() + " " + c["params"]["arch"].get<std::string>()] =
        c["status"].get<std::string>() + " " + c.value("reason", "") + (c["status"] == "PASS" ? "" : ": " + c.value("message", ""));
  const std::map<std::string, std::string> expected = {
      {"targets_cuda_only sm_90", "PASS "},
      {"targets_cuda_only gfx90a", "SKIP NOT_FOR_VENDOR: the manifest gives this kernel a CUDA file only (\"source\": {\"cuda\": ...}); gfx90a compiles HIP files"},
      {"targets_hip_only sm_90", "SKIP NOT_FOR_VENDOR: the manifest gives this kernel a HIP file only (\"source\": {\"hip\": ...}); sm_90 compiles CUDA files"},
      {"targets_hip_only gfx90a", "PASS "},
      {"targets_per_target_defines sm_90", "PASS "},
      {"targets_per_target_defines gfx90a", "PASS "}};
  EXPECT_EQ(verdicts, expected);
}

#endif

// Ctrl-C during a compile that never ends: the compile is ended, it and the compiles not started
// are NOT_RUN, the reports are written and hkcheck exits 130, as a run does. The fake worker
// stands in for the compile worker, so no compiler is needed.
TEST_F(CompileOnly, InterruptedCompilesAreNotRunAndTheReportsAreWritten) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const char* name : {"hang", "ok1", "ok2"}) {
    dir.write(std::string("m/") + name + ".cu", "#include \"hkcheck.h\"\n");
    kernels.push_back({{"name", name}, {"source", std::string(name) + ".cu"}, {"entry", "k"}, {"reference", "relu"},
                       {"cases", {{{"name", "one"}, {"params", {{"n", 4}}}}}},
                       {"tensors", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "in"}, {"init", {{"kind", "normal"}}}}, {{"name", "y"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "out"}}}},
                       {"args", {"y", "x"}},
                       {"launch", {{"grid", {1}}, {"block", {32}}}}});
  }
  dir.write("m/k.json", nlohmann::json{{"hkcheck_manifest", 1}, {"kernels", kernels}}.dump());
  const std::string pids = dir.path() + "/pids", out = dir.path() + "/out";
  std::filesystem::create_directories(pids);
  setenv("HKCHECK_FAKE_WORKER_PID_DIR", pids.c_str(), 1);
  Subprocess p({HKCHECK_PATH, "--compile-only", "--arch", "sm_90", "--worker-exe", FAKE_WORKER_PATH, "--jobs", "1", "--no-cache",
                "--manifests", dir.path() + "/m", "--out", out},
               3);
  unsetenv("HKCHECK_FAKE_WORKER_PID_DIR");
  pid_t worker = 0;  // the compile worker, once it has said hello and been sent the first file
  for (int i = 0; i < 6000 && !worker; ++i) {
    if (p.wait_for(std::chrono::milliseconds(50))) break;  // ended before it compiled anything
    for (const auto& e : std::filesystem::directory_iterator(pids)) worker = std::stoi(e.path().filename().string());
  }
  ASSERT_NE(worker, 0) << p.output_tail(4000);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(p.pid(), SIGINT);
  ASSERT_TRUE(p.wait_for(std::chrono::seconds(60))) << "hkcheck did not stop on SIGINT\n" << p.output_tail(4000);
  const ExitStatus st = p.wait();
  EXPECT_TRUE(st.exited && st.code == 130) << st.describe() << "\n" << p.output_tail(4000);
  EXPECT_TRUE(test::gone_within(worker, 10000)) << "the compile worker outlived hkcheck";
  const json r = json::parse(read_file(out + "/test_results.json"));
  EXPECT_EQ(r["run"]["interrupted"], "SIGINT");
  ASSERT_EQ(r["cases"].size(), 3u);
  for (const json& c : r["cases"]) {
    EXPECT_EQ(c["status"], "NOT_RUN") << c.dump();
    EXPECT_NE(c["message"].get<std::string>().find("interrupted by SIGINT"), std::string::npos) << c.dump();
  }
}

TEST_F(CompileOnly, UsageErrorsExitTwo) {
  EXPECT_EQ(run({"rmsnorm"}), 2) << "--compile-only without --arch";
  EXPECT_EQ(run({"--arch", "vulkan", "rmsnorm"}), 2);
}

}  // namespace
}  // namespace hk
