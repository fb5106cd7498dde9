// Compiles made ahead of a run's workers (compile_ahead.h) and the per-key lock they share with
// the workers (compile_lock.h): one compile per key whoever gets there first, a dead holder
// blocks nobody, and a worker finds what was compiled ahead under its own key.
#include "run/compile_ahead.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "worker/case_exec.h"
#include "compile/compile_cache.h"
#include "compile/compile_lock.h"
#include "platform/compiler.h"
#include "sim_backend.h"
#include "process/subprocess.h"
#include "test_util.h"
#include "model/manifest_load.h"

namespace hk {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

CompileOutput slow_compile(std::atomic<int>& count) {
  ++count;
  std::this_thread::sleep_for(400ms);
  return CompileOutput{true, "binary", "", {{"k", "k"}}, {}};
}

struct SharedCache : ::testing::Test {
  test::TempDir cache;
  std::atomic<int> compiles{0};
  CompileCache::CompileFn slow = [this](const CompileRequest&) { return slow_compile(compiles); };
  const CompileRequest q{"// source\n", "/project/k.cu", {"-DN=4"}, {"k"}};
  DeviceInfo device() const {
    DeviceInfo d;
    d.backend = "sim";
    d.arch = "sim_1";
    d.runtime_version = "sim 1.0";
    return d;
  }
};

TEST_F(SharedCache, ASecondProcessWaitsForTheCompileOfItsKeyAndReadsIt) {
  bool first_cached = true, second_cached = false;
  std::thread first([&] { CompileCache(cache.path()).get("compiler", "sim", slow, q, &first_cached); });
  std::this_thread::sleep_for(100ms);  // the first now holds the key
  const CompileOutput out = CompileCache(cache.path()).get("compiler", "sim", slow, q, &second_cached);
  first.join();
  EXPECT_EQ(compiles, 1) << "two caches on one folder compiled the same key twice";
  EXPECT_FALSE(first_cached);
  EXPECT_TRUE(second_cached);
  EXPECT_EQ(out.binary, "binary");
  for (const auto& f : std::filesystem::directory_iterator(cache.path()))
    EXPECT_NE(f.path().extension(), ".lock") << "a lock is left behind: " << f.path();
}

TEST_F(SharedCache, ACompileAheadLeavesAKeyBeingCompiledToWhoeverHoldsIt) {
  bool cached = false;
  std::thread first([&] { CompileCache(cache.path()).get_ahead(device(), slow, q, &cached); });
  std::this_thread::sleep_for(100ms);
  const auto busy = CompileCache(cache.path()).get_ahead(device(), slow, q, &cached);
  first.join();
  EXPECT_FALSE(busy.has_value());
  EXPECT_EQ(compiles, 1);
  const auto after = CompileCache(cache.path()).get_ahead(device(), slow, q, &cached);
  ASSERT_TRUE(after.has_value());
  EXPECT_TRUE(cached) << "the first compile's entry is read back";
}

TEST_F(SharedCache, AKilledHolderBlocksNobody) {
  const std::string lock_path = cache.path() + "/key.lock";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    CompileLock held(lock_path, true);
    const char c = held.held() ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  EXPECT_TRUE(CompileLock(lock_path, false).busy());
  kill(child, SIGKILL);  // a compiler killed mid-compile
  waitpid(child, nullptr, 0);
  CompileLock after(lock_path, false);
  EXPECT_TRUE(after.held());
  close(ready[0]);
  close(ready[1]);
}

TEST(CompileAheadProcesses, TheCoresTheWorkersLeaveUnlessTheEnvironmentSays) {
  unsetenv("HKCHECK_COMPILE_AHEAD");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(compile_ahead_processes(1), cores - 1);
  EXPECT_EQ(compile_ahead_processes(cores + 4), 0);
  setenv("HKCHECK_COMPILE_AHEAD", "0", 1);
  EXPECT_EQ(compile_ahead_processes(1), 0);
  setenv("HKCHECK_COMPILE_AHEAD", "3", 1);
  EXPECT_EQ(compile_ahead_processes(100), 3);
  setenv("HKCHECK_COMPILE_AHEAD", "three", 1);
  EXPECT_EQ(compile_ahead_processes(1), cores - 1) << "a value that is not a count is ignored";
  unsetenv("HKCHECK_COMPILE_AHEAD");
}

// A process's nice value, from /proc/<pid>/stat (the 19th field).
int niceness_of(pid_t pid) {
  const std::string stat = test::slurp("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 19 && rest >> field; ++i) {
  }
  return std::stoi(field);
}

TEST(CompileWorker, ACompileWorkerAheadOfARunYieldsTheCpu) {
  const int own = niceness_of(getpid());
  for (const bool yield : {false, true}) {
    std::vector<std::string> argv = {HKCHECK_PATH, "--compile-worker", "--backend", "cuda", "--arch", "sm_90", "--protocol-fd", "3", "--no-cache"};
    if (yield) argv.push_back("--yield-cpu");
    Subprocess worker(argv, 3);
    std::string hello;
    ASSERT_EQ(worker.read_line(hello, std::chrono::steady_clock::now() + 60s), Subprocess::Read::line) << worker.output_tail(2000);
    EXPECT_EQ(niceness_of(worker.pid()), yield ? std::min(own + 10, 19) : own);
  }
}

// A worker's backend on an sm_90 device as NVRTC names itself, except that it cannot compile:
// whatever it runs was compiled ahead, by another process.
class CompilesNothing : public test::SimBackend {
 public:
  explicit CompilesNothing(const std::string& nvrtc) {
    dev_.backend = "cuda";
    dev_.arch = "sm_90";
    dev_.runtime_version = nvrtc;
    dev_.warp_size = 32;
  }
  int compiles = 0;
  CompileOutput compile(const CompileRequest&) override {
    ++compiles;
    return {false, "", "the worker compiled", {}, {}};
  }
};

struct AheadOfAWorker : ::testing::Test {
  test::TempDir dir, cache;
  std::string nvrtc;
  void SetUp() override {
    try {
      nvrtc = open_compiler("cuda", "sm_90")->version();
    } catch (const std::exception& e) {
      GTEST_SKIP() << e.what();
    }
  }
  KernelSpec kernel() {
    dir.write("k.cu", "#include \"hkcheck.h\"\n"
                      "HK_KERNEL void copy(float* out, const float* x, int n) {\n"
                      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n) out[i] = x[i];\n}\n");
    const json k = json::parse(R"J({
      "name": "k", "source": "k.cu", "entry": "copy", "reference": "copy", "params": {"n": 100},
      "defines": {"N": "n"}, "cases": [{"name": "c"}],
      "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                  {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
      "args": ["out", "x", {"dtype": "i32", "value": "n"}],
      "launch": {"grid": [1], "block": [128]}
    })J");
    const ManifestLoad m = load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {k}}}.dump()));
    EXPECT_TRUE(m.errors.empty()) << m.errors.at(0);
    return m.kernels.at(0);
  }
  CompileAhead::Tally run_ahead(const KernelSpec& k, const DeviceInfo& device) {
    CompileAhead ahead({HKCHECK_PATH, cache.path(), "", 2, 60}, ahead_compile_jobs({{&k, &k.cases.at(0)}, {&k, &k.cases.at(0)}}, device, 0, 1));
    for (auto until = std::chrono::steady_clock::now() + 90s; !ahead.finished() && std::chrono::steady_clock::now() < until;)
      std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(ahead.finished());
    return ahead.tally();
  }
};

TEST_F(AheadOfAWorker, TheWorkerFindsTheKernelCompiledUnderItsOwnKey) {
  CompilesNothing be(nvrtc);
  be.kernels["copy"] = [](float* out, const float* x, int n, int) { std::copy(x, x + n, out); };
  const KernelSpec k = kernel();
  const CompileAhead::Tally t = run_ahead(k, be.device());
  EXPECT_EQ(t.made, 1) << "one configuration, asked for twice, compiled once";
  EXPECT_EQ(t.failed, 0);
  CompileCache worker_cache(cache.path());
  bool sticky = false;
  const CaseResult r = execute_case(be, k, k.cases.at(0), ExecOptions{0, 1}, worker_cache, &sticky);
  EXPECT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_TRUE(r.timings.compile_cached);
  EXPECT_EQ(be.compiles, 0);
  const CompileCache kept(cache.path());
  EXPECT_TRUE(ahead_compile_jobs({{&k, &k.cases.at(0)}}, be.device(), 0, 1, &kept).empty()) << "what is kept is not compiled ahead again";
  EXPECT_EQ(ahead_compile_jobs({{&k, &k.cases.at(0)}}, be.device(), 0, 1).size(), 1u);
}

TEST_F(AheadOfAWorker, StoppingEndsTheCompilesInProgressAtOnce) {
  CompilesNothing be(nvrtc);
  const KernelSpec k = kernel();
  std::vector<CompileJob> jobs = ahead_compile_jobs({{&k, &k.cases.at(0)}}, be.device(), 0, 1);
  ASSERT_EQ(jobs.size(), 1u);
  for (int i = 1; i < 40; ++i) {  // forty configurations of one file
    jobs.push_back(jobs.front());
    jobs.back().options.push_back("-DVARIANT=" + std::to_string(i));
  }
  CompileAhead ahead({HKCHECK_PATH, cache.path(), "", 2, 60}, jobs);
  std::this_thread::sleep_for(300ms);
  const auto t0 = std::chrono::steady_clock::now();
  ahead.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s) << "a stop waits for the compiles in progress";
  EXPECT_TRUE(ahead.finished());
  EXPECT_LT(ahead.tally().made, 40);
}

TEST_F(AheadOfAWorker, ACompilerOtherThanTheRunsCompilesNothing) {
  CompilesNothing be("NVRTC 0.1");  // the run's device names another NVRTC
  const KernelSpec k = kernel();
  const CompileAhead::Tally t = run_ahead(k, be.device());
  EXPECT_EQ(t.made + t.found, 0);
  EXPECT_TRUE(std::filesystem::is_empty(cache.path()) || !std::filesystem::exists(cache.path()));
}

}  // namespace
}  // namespace hk
