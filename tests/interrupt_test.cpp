// SIGINT in the middle of a run: the reports hold every case (the unfinished ones NOT_RUN), no
// worker outlives hkcheck, and --resume runs only what is missing. hkcheck runs the fake worker
// (tests/fake_worker.cpp) in place of `hkcheck --worker`, so no GPU is needed.
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "process/subprocess.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
constexpr int kCases = 8;

using test::slurp;

int count_lines(const std::string& path) {
  const std::string s = slurp(path);
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

// Bounds that only end a hang: on 2 cores beside 16 busy processes a run is about 9 times slower
// than idle, and a test that times hkcheck would fail there (the ctest suite must hold on a busy machine).
constexpr std::chrono::seconds kStop{60};   // from a signal to hkcheck's exit, the reports written
constexpr std::chrono::seconds kRun{300};   // a whole (resumed) run of the eight cases

std::vector<pid_t> worker_pids(const std::string& dir) {
  std::vector<pid_t> pids;
  for (const auto& e : fs::directory_iterator(dir)) pids.push_back(std::stoi(e.path().filename().string()));
  return pids;
}

struct Interrupt : ::testing::Test {
  test::TempDir dir;
  std::string manifests, out, pids;

  void SetUp() override {
    dir.write("m/k.cu", "#include \"hkcheck.h\"\n");
    json sweep = json::array();
    for (int i = 1; i <= kCases; ++i) sweep.push_back(i);
    const json kernel = {{"name", "slow_kernel"}, {"source", "k.cu"}, {"entry", "k"}, {"reference", "relu"},
                         {"cases", {{{"sweep", {{"n", sweep}}}}}},
                         {"tensors", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "in"}, {"init", {{"kind", "normal"}}}},
                                      {{"name", "y"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "out"}}}},
                         {"args", {"y", "x", {{"dtype", "i32"}, {"value", "n"}}}},
                         {"launch", {{"grid", {1}}, {"block", {32}}}}};
    dir.write("m/slow.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump());
    manifests = dir.path() + "/m";
    out = dir.path() + "/out";
    pids = dir.path() + "/pids";
    fs::create_directories(pids);
    setenv("HKCHECK_FAKE_WORKER_PID_DIR", pids.c_str(), 1);
  }
  void TearDown() override { unsetenv("HKCHECK_FAKE_WORKER_PID_DIR"); }

  std::vector<std::string> hkcheck(std::vector<std::string> args) const {
    std::vector<std::string> argv = {HKCHECK_PATH, "--worker-exe", FAKE_WORKER_PATH, "--no-cache"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  // Waits until the journal holds n finished cases (after its header line). A run's start builds
  // its reference library first, which on a busy machine takes minutes: the bound only ends a hang.
  bool wait_for_cases(int n) const {
    for (int i = 0; i < 6000; ++i) {
      if (count_lines(out + "/results.jsonl") >= n + 1) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  json results() const { return json::parse(slurp(out + "/test_results.json")); }
};

TEST_F(Interrupt, ASecondRunIntoTheSameFolderIsRefusedWhileTheFirstRuns) {
  Subprocess first(hkcheck({"--manifests", manifests, "--out", out}), 3);
  ASSERT_TRUE(wait_for_cases(1)) << first.output_tail(4000);
  Subprocess second(hkcheck({"--manifests", manifests, "--out", out}), 3);
  ASSERT_TRUE(second.wait_for(kRun));
  const ExitStatus st = second.wait();
  EXPECT_TRUE(st.exited && st.code == 2) << st.describe();
  EXPECT_NE(second.output_tail(4000).find("another hkcheck run (pid " + std::to_string(first.pid()) + ") is writing into"), std::string::npos)
      << second.output_tail(4000);
  ASSERT_TRUE(first.wait_for(kRun));
  EXPECT_EQ(first.wait().code, 0) << first.output_tail(4000);
  EXPECT_EQ(results()["summary"]["PASS"], kCases) << "the first run's results are whole";
}

TEST_F(Interrupt, SigintWritesEveryCaseLeavesNoWorkerAndResumeFinishes) {
  int passed_before = 0;
  {
    Subprocess run(hkcheck({"--manifests", manifests, "--out", out}), 3);
    ASSERT_TRUE(wait_for_cases(2)) << run.output_tail(4000);
    ASSERT_EQ(::kill(run.pid(), SIGINT), 0);
    ASSERT_TRUE(run.wait_for(kStop)) << "hkcheck did not stop within " << kStop.count() << " s of SIGINT";
    const ExitStatus st = run.wait();
    EXPECT_TRUE(st.exited && st.code == 130) << st.describe() << "\n" << run.output_tail(4000);
  }
  for (pid_t pid : worker_pids(pids)) EXPECT_TRUE(test::gone_within(pid, 30000)) << "worker " << pid << " outlived hkcheck";

  const json r = results();
  EXPECT_EQ(r["run"]["interrupted"], "SIGINT");
  ASSERT_EQ(r["cases"].size(), static_cast<size_t>(kCases));
  const json& sum = r["summary"];
  EXPECT_EQ(sum["total"], kCases);
  passed_before = sum["PASS"];
  EXPECT_GE(passed_before, 2);
  EXPECT_GE(sum["NOT_RUN"].get<int>(), 1);
  EXPECT_EQ(passed_before + sum["NOT_RUN"].get<int>(), kCases) << r["summary"].dump();
  for (const json& c : r["cases"]) EXPECT_TRUE(c["status"] == "PASS" || c["status"] == "NOT_RUN") << c.dump();
  EXPECT_NE(slurp(out + "/test_results.md").find("NOT_RUN"), std::string::npos);
  EXPECT_EQ(count_lines(out + "/results.jsonl"), 1 + passed_before) << "only finished cases are journaled";

  // --resume runs the rest, and only the rest: one worker, the probe's, for the kernel's missing cases.
  const size_t workers_before = worker_pids(pids).size();
  {
    Subprocess resume(hkcheck({"--resume", out}), 3);
    ASSERT_TRUE(resume.wait_for(kRun));
    const ExitStatus st = resume.wait();
    EXPECT_TRUE(st.exited && st.code == 0) << st.describe() << "\n" << resume.output_tail(4000);
  }
  const json done = results();
  EXPECT_EQ(done["summary"]["PASS"], kCases) << done["summary"].dump();
  EXPECT_EQ(done["summary"]["NOT_RUN"], 0);
  EXPECT_TRUE(done["run"]["interrupted"].is_null());
  EXPECT_EQ(worker_pids(pids).size() - workers_before, 1u);
  EXPECT_EQ(count_lines(out + "/results.jsonl"), 1 + kCases);
}

// A second signal kills the workers at once; the reports are still written, every case in them.
TEST_F(Interrupt, SecondSigintKillsTheWorkersAndStillWritesTheReports) {
  Subprocess run(hkcheck({"--manifests", manifests, "--out", out}), 3);
  ASSERT_TRUE(wait_for_cases(1)) << run.output_tail(4000);
  ::kill(run.pid(), SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // two pending SIGINTs would merge into one
  ::kill(run.pid(), SIGINT);
  ASSERT_TRUE(run.wait_for(kStop));
  const ExitStatus st = run.wait();
  EXPECT_TRUE(st.exited && st.code == 130) << st.describe();
  for (pid_t pid : worker_pids(pids)) EXPECT_TRUE(test::gone_within(pid, 30000)) << "worker " << pid << " outlived hkcheck";
  const json r = results();
  EXPECT_EQ(r["run"]["interrupted"], "SIGINT");
  EXPECT_EQ(r["summary"]["total"], kCases) << r["summary"].dump();
  // The workers the second signal killed were stopped, not crashed: --resume runs their cases.
  EXPECT_EQ(r["summary"]["CRASH"], 0) << r["summary"].dump();
}

// What coreutils `timeout` does: SIGTERM to the process, then to its process group.
TEST_F(Interrupt, SigtermToTheProcessAndItsGroupStillWritesTheReports) {
  Subprocess run(hkcheck({"--manifests", manifests, "--out", out}), 3);
  ASSERT_TRUE(wait_for_cases(1)) << run.output_tail(4000);
  ::kill(run.pid(), SIGTERM);
  ::kill(-run.pid(), SIGTERM);
  ASSERT_TRUE(run.wait_for(kStop));
  const ExitStatus st = run.wait();
  EXPECT_TRUE(st.exited && st.code == 143) << st.describe();
  const json r = results();
  EXPECT_EQ(r["run"]["interrupted"], "SIGTERM");
  EXPECT_EQ(r["summary"]["total"], kCases) << r["summary"].dump();
  EXPECT_EQ(r["summary"]["CRASH"], 0) << r["summary"].dump();
}

TEST_F(Interrupt, ResumeRefusesADifferentSeed) {
  Subprocess run(hkcheck({"--manifests", manifests, "--out", out, "--seed", "1", "--timeout", "5"}), 3);
  ASSERT_TRUE(run.wait_for(kRun));
  Subprocess resume(hkcheck({"--resume", out, "--seed", "2"}), 3);
  ASSERT_TRUE(resume.wait_for(kRun));
  const ExitStatus st = resume.wait();
  EXPECT_TRUE(st.exited && st.code == 2) << st.describe();
  EXPECT_NE(resume.output_tail(4000).find("--seed 1, not 2"), std::string::npos) << resume.output_tail(4000);
}

TEST_F(Interrupt, AKilledParentLeavesTheEarlierReportIntactAndResumeFinishes) {
  {
    Subprocess first(hkcheck({"--manifests", manifests, "--out", out}), 3);
    ASSERT_TRUE(first.wait_for(kRun));
  }
  const std::string earlier = slurp(out + "/test_results.json");
  ASSERT_EQ(json::parse(earlier)["summary"]["PASS"], kCases);
  {
    Subprocess run(hkcheck({"--manifests", manifests, "--out", out}), 3);
    ASSERT_TRUE(wait_for_cases(2)) << run.output_tail(4000);
    ::kill(run.pid(), SIGKILL);  // no handler, no reports: as if hkcheck itself crashed
    run.wait();
  }
  EXPECT_EQ(slurp(out + "/test_results.json"), earlier) << "the earlier report must stay whole";
  for (pid_t pid : worker_pids(pids)) EXPECT_TRUE(test::gone_within(pid, 30000)) << "worker " << pid << " outlived hkcheck";
  Subprocess resume(hkcheck({"--resume", out}), 3);
  ASSERT_TRUE(resume.wait_for(kRun));
  EXPECT_EQ(resume.wait().code, 0) << resume.output_tail(4000);
  EXPECT_EQ(results()["summary"]["PASS"], kCases);
  EXPECT_EQ(count_lines(out + "/results.jsonl"), 1 + kCases);
}

TEST_F(Interrupt, SigtermIsHandledLikeSigint) {
  Subprocess run(hkcheck({"--manifests", manifests, "--out", out}), 3);
  ASSERT_TRUE(wait_for_cases(1)) << run.output_tail(4000);
  ::kill(run.pid(), SIGTERM);
  ASSERT_TRUE(run.wait_for(kStop));
  const ExitStatus st = run.wait();
  EXPECT_TRUE(st.exited && st.code == 143) << st.describe();
  EXPECT_EQ(results()["run"]["interrupted"], "SIGTERM");
  EXPECT_EQ(results()["summary"]["total"], kCases);
}

}  // namespace
}  // namespace hk
