// Repro folders and --sanitize through the whole binary, with the fake worker claiming the CUDA
// backend and a stand-in compute-sanitizer that writes a log and runs the worker.
#include "run/sanitize.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process/subprocess.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::slurp;

TEST(Sanitizer, FirstReportAndSummaryAreReadOffTheLog) {
  const std::string log =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at rmsnorm+0x1b0 in rmsnorm.cu:12\n"
      "=========     by thread (3,0,0) in block (0,0,0)\n"
      "=========\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at rmsnorm+0x1b0 in rmsnorm.cu:12\n"
      "=========\n"
      "some program output\n"
      "========= ERROR SUMMARY: 2 errors\n";
  const SanitizerReport r = parse_sanitizer_log(log);
  EXPECT_EQ(r.first_error,
            "Invalid __global__ write of size 4 bytes\n    at rmsnorm+0x1b0 in rmsnorm.cu:12\n    by thread (3,0,0) in block (0,0,0)\n");
  EXPECT_EQ(r.summary, "ERROR SUMMARY: 2 errors");
  EXPECT_EQ(parse_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n").first_error, "");
  // racecheck (CUDA 13) ends with its own summary line and no ERROR SUMMARY.
  const SanitizerReport race = parse_sanitizer_log(
      "========= COMPUTE-SANITIZER\n========= Warning: Race reported between Read access at k+0x310\n"
      "=========     and Write access at k+0x320 [256 hazards]\n=========\n"
      "========= RACECHECK SUMMARY: 7 hazards displayed (2 errors, 5 warnings)\n");
  EXPECT_EQ(race.summary, "RACECHECK SUMMARY: 7 hazards displayed (2 errors, 5 warnings)");
  EXPECT_EQ(sanitizer_error_count(race.summary), 7);
  EXPECT_EQ(sanitizer_error_count("ERROR SUMMARY: 3 errors"), 3);
  EXPECT_EQ(sanitizer_error_count("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"), 0);
  EXPECT_EQ(sanitizer_error_count(""), 0);
  EXPECT_NE(parse_sanitizer_log(log, 1).first_error.find("...\n"), std::string::npos) << "long reports are cut";
}

struct EndToEnd : ::testing::Test {
  test::TempDir dir;
  std::string out, old_path;

  void SetUp() override {
    dir.write("m/k.cu", "#include \"hkcheck.h\"\n");
    const json kernel = {{"name", "fail_kernel"}, {"source", "k.cu"}, {"entry", "k"}, {"reference", "relu"},
                         {"defines", {{"T", "float"}}},
                         {"cases", {{{"name", "only"}, {"params", {{"n", 16}}}}}},
                         {"tensors", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "in"}, {"init", {{"kind", "normal"}}}},
                                      {{"name", "y"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "out"}}}},
                         {"args", {"y", "x", {{"dtype", "i32"}, {"value", "n"}}}},
                         {"launch", {{"grid", {1}}, {"block", {32}}}}};
    dir.write("m/fail.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump());
    dir.write("bin/compute-sanitizer",
              "#!/bin/sh\n"
              "while [ $# -gt 0 ]; do case \"$1\" in --log-file) log=\"$2\"; shift 2;; --tool) tool=\"$2\"; shift 2;;"
              " --target-processes) shift 2;; *) break;; esac; done\n"
              "printf '========= COMPUTE-SANITIZER\\n========= Invalid __global__ write of size 4 bytes (%s)\\n"
              "=========     at k+0x10\\n=========\\n========= ERROR SUMMARY: 1 error\\n' \"$tool\" > \"$log\"\n"
              "exec \"$@\"\n");
    fs::permissions(dir.path() + "/bin/compute-sanitizer", fs::perms::owner_all);
    out = dir.path() + "/out";
    old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir.path() + "/bin:" + old_path).c_str(), 1);
  }
  void TearDown() override { setenv("PATH", old_path.c_str(), 1); }

  json run(const std::string& backend, int expected_exit, const std::string& extra = "--sanitize") {
    Subprocess p({HKCHECK_PATH, "--worker-exe", FAKE_WORKER_PATH, "--no-cache", "--backend", backend, extra, "--seed", "5",
                  "--manifests", dir.path() + "/m", "--out", out},
                 3);
    EXPECT_TRUE(p.wait_for(std::chrono::seconds(300)));
    const ExitStatus st = p.wait();
    EXPECT_TRUE(st.exited && st.code == expected_exit) << st.describe() << "\n" << p.output_tail(4000);
    return json::parse(slurp(out + "/test_results.json"));
  }
};

TEST_F(EndToEnd, FailingCaseGetsAReproFolderAndASanitizerReport) {
  const json r = run("cuda", 1);
  ASSERT_EQ(r["cases"].size(), 1u);
  const json& c = r["cases"][0];
  EXPECT_EQ(c["status"], "FAIL");
  ASSERT_EQ(c["repro"], "repro/fail_kernel/only");
  const std::string repro = out + "/repro/fail_kernel/only";
  for (const char* f : {"manifest.json", "k.cu", "inputs/x.hkt", "compile_options.txt", "rerun.sh"})
    EXPECT_TRUE(fs::exists(repro + "/" + f)) << f;
  EXPECT_TRUE(fs::exists(repro + "/output/fake.got")) << "the worker was given the repro folder";
  EXPECT_NE(slurp(repro + "/compile_options.txt").find("--gpu-architecture=fake_1\n-std=c++17\n-DHK_BACKEND_CUDA=1\n--pre-include=hk_nvcc_environment.h\n-DT=float\n"), std::string::npos)
      << slurp(repro + "/compile_options.txt");
  const std::string rerun_sh = slurp(repro + "/rerun.sh");
  for (const char* option : {" --seed 5 ", " --backend cuda ", " --isolation case ", " --sanitize "})
    EXPECT_NE(rerun_sh.find(option), std::string::npos) << option << "\n" << rerun_sh;

  // The one-line rerun runs just this case, with the same name and seed.
  Subprocess rerun({"/bin/sh", "-c", "HKCHECK='" + std::string(HKCHECK_PATH) + "' \"$0\" --worker-exe '" + FAKE_WORKER_PATH + "' --no-cache",
                    repro + "/rerun.sh"},
                   3);
  ASSERT_TRUE(rerun.wait_for(std::chrono::seconds(300)));
  EXPECT_EQ(rerun.wait().code, 1) << rerun.output_tail(4000);
  const json again = json::parse(slurp(repro + ".rerun/test_results.json"));
  ASSERT_EQ(again["cases"].size(), 1u);
  EXPECT_EQ(again["cases"][0]["case"], "only");
  EXPECT_EQ(again["cases"][0]["status"], "FAIL");
  EXPECT_EQ(again["run"]["spec"]["seed"], 5);

  ASSERT_TRUE(c["sanitizer"].is_object()) << c.dump(2);
  const json& tools = c["sanitizer"]["tools"];
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0]["tool"], "memcheck");
  EXPECT_EQ(tools[0]["first_error"], "Invalid __global__ write of size 4 bytes (memcheck)\n    at k+0x10\n");
  EXPECT_EQ(tools[1]["tool"], "racecheck");
  EXPECT_EQ(tools[1]["summary"], "ERROR SUMMARY: 1 error");
  EXPECT_EQ(r["run"]["sanitizer"]["ran"], true);

  const std::string md = slurp(out + "/test_results.md");
  EXPECT_NE(md.find("compute-sanitizer memcheck: ERROR SUMMARY: 1 error"), std::string::npos) << md;
  EXPECT_NE(md.find("repro: `repro/fail_kernel/only/`"), std::string::npos) << md;
}

TEST_F(EndToEnd, NamedToolsRunEveryCaseAndAReportFailsAPass) {
  json ok = json::parse(slurp(dir.path() + "/m/fail.json"));
  ok["kernels"][0]["name"] = "ok_kernel";
  dir.write("m/ok.json", ok.dump());
  const json r = run("cuda", 1, "--sanitize=racecheck");
  ASSERT_EQ(r["cases"].size(), 2u);
  for (const json& c : r["cases"]) {
    // The stand-in tool reports an error for every case: the passing one fails by it.
    EXPECT_EQ(c["status"], "FAIL") << c.dump(2);
    ASSERT_EQ(c["sanitizer"]["tools"].size(), 1u);
    EXPECT_EQ(c["sanitizer"]["tools"][0]["tool"], "racecheck");
    EXPECT_EQ(c["sanitizer"]["tools"][0]["errors"], 1);
  }
  const json& passed = r["cases"][0]["kernel"] == "ok_kernel" ? r["cases"][0] : r["cases"][1];
  EXPECT_EQ(passed["message"], "compute-sanitizer racecheck: ERROR SUMMARY: 1 error: Invalid __global__ write of size 4 bytes (racecheck)");
  EXPECT_EQ(r["run"]["sanitizer"]["every_case"], true);

  // A bare --sanitize leaves a passing case alone.
  const json bare = run("cuda", 1);
  for (const json& c : bare["cases"])
    if (c["kernel"] == "ok_kernel") EXPECT_EQ(c["status"], "PASS") << c.dump(2);
}

TEST_F(EndToEnd, SanitizeSaysWhyItDidNotRun) {
  const json r = run("auto", 1);  // the fake worker then claims a backend that is not CUDA
  EXPECT_EQ(r["run"]["sanitizer"]["ran"], false);
  EXPECT_NE(r["run"]["sanitizer"]["why"].get<std::string>().find("needs the CUDA backend"), std::string::npos);
  EXPECT_TRUE(r["cases"][0]["sanitizer"].is_null());
  EXPECT_NE(slurp(out + "/test_results.md").find("--sanitize did not run"), std::string::npos);
}

TEST_F(EndToEnd, NoReproWritesNone) {
  const json r = run("cuda", 1, "--no-repro");
  EXPECT_TRUE(r["cases"][0]["repro"].is_null());
  EXPECT_FALSE(fs::exists(out + "/repro"));
  EXPECT_TRUE(r["run"]["sanitizer"].is_null()) << "no --sanitize, no sanitizer record";
}

}  // namespace
}  // namespace hk
