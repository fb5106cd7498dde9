// Worker reuse (Runner::run_all) with the fake worker (tests/fake_worker.cpp): many cases per
// worker, a crash or hang in the middle of a worker's sequence costing only that case, the rerun
// alone that turns "fails after X" into LEAK, and --isolation case starting a worker per case.
#include <algorithm>
#include <chrono>
#include <future>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <thread>
#include <unistd.h>

#include "process/interrupt.h"
#include "run/runner.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

// Kernels with one or more cases, in run order, and the results run_all gives them.
struct Pool {
  std::vector<KernelSpec> kernels;
  std::vector<CaseResult> results;
  size_t workers_started = 0;

  void add(const std::string& name, int cases = 1) {
    KernelSpec k;
    k.name = name;
    k.manifest = "fake.json";
    for (int i = 1; i <= cases; ++i) k.cases.push_back(CaseSpec{"c" + std::to_string(i), {}, {}});
    kernels.push_back(k);
  }

  void run(RunOptions opt) {
    const fs::path pids = fs::temp_directory_path() / ("hk_pool_pids_" + std::to_string(::getpid()));
    fs::remove_all(pids);
    fs::create_directories(pids);
    setenv("HKCHECK_FAKE_WORKER_PID_DIR", pids.c_str(), 1);
    run_without_counting(opt);
    unsetenv("HKCHECK_FAKE_WORKER_PID_DIR");
    workers_started = static_cast<size_t>(std::distance(fs::directory_iterator(pids), fs::directory_iterator()));
    fs::remove_all(pids);
  }

  // As run(), without counting the workers (the environment is not touched: runs side by side).
  void run_without_counting(RunOptions opt) {
    std::vector<CaseTask> tasks;
    for (const KernelSpec& k : kernels)
      for (const CaseSpec& c : k.cases) tasks.push_back(CaseTask{&k, &c, ""});
    results.assign(tasks.size(), CaseResult{});
    std::vector<int> delivered(tasks.size(), 0);
    Runner(opt).run_all(tasks, [&](size_t i, CaseResult r) {
      ++delivered[i];
      results[i] = std::move(r);
    });
    for (int d : delivered) EXPECT_EQ(d, 1) << "every case gets exactly one result";
  }
};

RunOptions options(double timeout = 5, Isolation iso = Isolation::worker, int jobs = 1) {
  RunOptions o{FAKE_WORKER_PATH, "fake", 0, timeout, 5, 0, ""};
  o.isolation = iso;
  o.jobs = jobs;
  return o;
}

TEST(RunnerPool, OneWorkerRunsManyCases) {
  Pool p;
  p.add("ok_a", 3);
  p.add("ok_b", 2);
  p.run(options());
  for (const CaseResult& r : p.results) EXPECT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_EQ(p.workers_started, 1u);
  for (size_t i = 0; i < p.results.size(); ++i) EXPECT_EQ(p.results[i].placement.position, static_cast<int>(i));
  EXPECT_EQ(p.results[0].placement.device, 0);
}

TEST(RunnerPool, IsolationCaseStartsAWorkerPerCase) {
  Pool p;
  p.add("ok_a", 3);
  p.run(options(5, Isolation::case_alone));
  for (const CaseResult& r : p.results) {
    EXPECT_EQ(r.status, Status::PASS) << r.message;
    EXPECT_EQ(r.placement.position, 0);
  }
  EXPECT_EQ(p.workers_started, 3u);
}

TEST(RunnerPool, ACrashInTheMiddleCostsOnlyThatCase) {
  Pool p;
  p.add("ok_a", 2);
  p.add("segv");
  p.add("ok_b", 2);
  p.run(options());
  EXPECT_EQ(p.results[0].status, Status::PASS);
  EXPECT_EQ(p.results[1].status, Status::PASS);
  ASSERT_EQ(p.results[2].status, Status::CRASH) << p.results[2].message;
  EXPECT_NE(p.results[2].message.find("SIGSEGV"), std::string::npos) << p.results[2].message;
  EXPECT_FALSE(p.results[2].leak) << "it crashes alone too: not a leak";
  EXPECT_EQ(p.results[3].status, Status::PASS);
  EXPECT_EQ(p.results[4].status, Status::PASS);
  EXPECT_EQ(p.results[3].placement.position, 0) << "a fresh worker takes over after the crash";
  EXPECT_EQ(p.workers_started, 3u) << "the first, the rerun alone of the crash, and the one after it";
}

TEST(RunnerPool, AHangInTheMiddleCostsOnlyThatCase) {
  Pool p;
  p.add("ok_a");
  p.add("hang");
  p.add("ok_b");
  p.run(options(1.0));
  EXPECT_EQ(p.results[0].status, Status::PASS);
  EXPECT_EQ(p.results[1].status, Status::TIMEOUT) << p.results[1].message;
  EXPECT_EQ(p.results[2].status, Status::PASS) << p.results[2].message;
}

TEST(RunnerPool, FailingOnlyAfterEarlierCasesIsALeakNamingThem) {
  Pool p;
  p.add("ok_a");
  p.add("leak_counter", 2);
  p.run(options());
  EXPECT_EQ(p.results[1].status, Status::PASS) << "its first case in the worker is right";
  const CaseResult& r = p.results[2];
  ASSERT_EQ(r.status, Status::LEAK) << r.message;
  ASSERT_TRUE(r.leak);
  EXPECT_EQ(r.leak->in_worker, Status::FAIL);
  EXPECT_EQ(r.leak->alone, Status::PASS);
  EXPECT_EQ(r.leak->after_count, 2);
  EXPECT_EQ(r.leak->after, (std::vector<std::string>{"ok_a / c1", "leak_counter / c1"}));
  EXPECT_NE(r.message.find("passes alone, FAIL after ok_a / c1, leak_counter / c1"), std::string::npos) << r.message;
}

TEST(RunnerPool, AFailureConfirmedAloneKeepsItsVerdict) {
  Pool p;
  p.add("ok_a");
  p.add("fail_always");
  p.run(options());
  EXPECT_EQ(p.results[1].status, Status::FAIL);
  EXPECT_FALSE(p.results[1].leak);
  bool noted = false;
  for (const auto& n : p.results[1].notes) noted |= n.find("the same verdict alone") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A PASS whose record shows a failing output (forged, or corrupted on its way) is a harness error.
TEST(RunnerPool, APassItsOwnRecordContradictsIsAHarnessError) {
  Pool p;
  p.add("contradiction");
  p.add("ok_after");
  p.run(options());
  EXPECT_EQ(p.results[0].status, Status::ERROR);
  EXPECT_NE(p.results[0].message.find("harness error: the worker reported PASS, which its own record contradicts"), std::string::npos)
      << p.results[0].message;
  EXPECT_EQ(p.results[1].status, Status::PASS) << p.results[1].message;
  EXPECT_EQ(p.workers_started, 2u) << "the worker that sent it is not trusted with another case";
}

TEST(RunnerPool, JobsRunWorkersSideBySide) {
  Pool p;
  for (const char* k : {"slow_a", "slow_b", "slow_c", "slow_d"}) p.add(k, 2);
  p.run(options(5, Isolation::worker, 2));
  for (const CaseResult& r : p.results) EXPECT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_EQ(p.workers_started, 2u);
  for (size_t i = 0; i < p.results.size(); i += 2)
    EXPECT_EQ(p.results[i + 1].placement.position, p.results[i].placement.position + 1) << "a kernel's cases run in one worker, in order";
}

// A kernel that forks a process out of its worker's process group (setsid): the run ends it.
TEST(RunnerPool, AProcessAKernelLeavesBehindEndsWithTheRun) {
  test::TempDir dir;
  const std::string escape_file = dir.path() + "/escaped";
  setenv("HKCHECK_FAKE_WORKER_ESCAPE_FILE", escape_file.c_str(), 1);
  Pool p;
  p.add("escape");
  p.add("ok_a");
  p.run(options());
  unsetenv("HKCHECK_FAKE_WORKER_ESCAPE_FILE");
  const std::string pid_text = test::slurp(escape_file);
  ASSERT_FALSE(pid_text.empty()) << "the fake kernel did not leave its process";
  EXPECT_TRUE(test::process_gone(std::stoi(pid_text))) << "a process a kernel started outlived the run";
  for (const CaseResult& r : p.results) EXPECT_EQ(r.status, Status::PASS) << r.message;
}

// Two runs side by side in one process, as `hkcheck mutate` runs mutants: the one that ends first
// must not take the other's workers for orphans (they are this process's children too).
TEST(RunnerPool, ARunEndingSparesTheWorkersOfARunBesideIt) {
  Pool beside, quick;
  beside.add("slow_a", 5);  // 1.5 s in one worker
  quick.add("ok_a");
  std::thread t([&] { beside.run_without_counting(options()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  quick.run_without_counting(options());
  t.join();
  for (const Pool* p : {&beside, &quick})
    for (const CaseResult& r : p->results) EXPECT_EQ(r.status, Status::PASS) << r.message;
}

TEST(RunnerPool, DevicesEachGetTheirWorkers) {
  Pool p;
  // 8 cases of 0.3 s: one device's worker cannot take them all before the other's starts, as it
  // could take 4 instant ones on a loaded machine.
  for (const char* k : {"slow_a", "slow_b", "slow_c", "slow_d"}) p.add(k, 2);
  RunOptions o = options();
  o.devices = {0, 3};
  p.run(o);
  std::set<int> used;
  for (const CaseResult& r : p.results) used.insert(r.placement.device);
  EXPECT_EQ(used, (std::set<int>{0, 3}));
}

TEST(RunnerPool, AnInterruptEndsTheRunningCaseAndLeavesTheRestNotRun) {
  Pool p;
  p.add("ok_a");
  p.add("hang");
  p.add("ok_b", 3);
  std::thread later([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    request_interrupt(SIGINT);
  });
  const auto t0 = std::chrono::steady_clock::now();
  p.run(options(10.0));
  later.join();
  request_interrupt(0);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  EXPECT_EQ(p.results[0].status, Status::PASS);
  EXPECT_EQ(p.results[1].status, Status::NOT_RUN);
  for (size_t i = 2; i < p.results.size(); ++i) EXPECT_EQ(p.results[i].status, Status::NOT_RUN);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// Reference libraries are built beside the run (reference_libraries.h): a case whose library is
// ready runs while another library is still being compiled, the case that waits for it runs once
// it comes, and the library's notes reach its results.
TEST(RunnerPool, CasesWhoseLibraryIsReadyRunWhileOthersAreBuilt) {
  std::vector<KernelSpec> kernels(2);
  kernels[0].name = "ok_slow", kernels[0].reference = "slow_ref";
  kernels[1].name = "ok_fast", kernels[1].reference = "fast_ref";
  for (KernelSpec& k : kernels) k.manifest = "fake.json", k.cases = {CaseSpec{"c1", {}, {}}};
  // In schedule order the slow one comes first.
  const std::vector<CaseTask> tasks = {CaseTask{&kernels[0], &kernels[0].cases[0], "", 100}, CaseTask{&kernels[1], &kernels[1].cases[0], "", 1}};
  std::promise<void> fast_done;
  std::shared_future<void> released = fast_done.get_future().share();
  RunOptions o = options();
  o.references = ReferenceLibraries::start({{"slow_ref", 0}, {"fast_ref", 1}}, {{"slow_ref", "overrides a built-in reference"}},
                                           [&](const LibraryReady& ready, const std::atomic<bool>&) {
                                             ready(1, ReferenceLibrary{true, "/fast.so", "", false, 0, {}});
                                             released.wait_for(std::chrono::seconds(5));  // a runner that waits for it fails, not hangs
                                             ready(0, ReferenceLibrary{true, "/slow.so", "", false, 0, {"made again"}});
                                           });
  std::vector<std::string> order;
  std::vector<CaseResult> results(2);
  Runner(o).run_all(tasks, [&](size_t i, CaseResult r) {
    order.push_back(r.kernel);
    if (r.kernel == "ok_fast") fast_done.set_value();
    results[i] = std::move(r);
  });
  EXPECT_EQ(order, (std::vector<std::string>{"ok_fast", "ok_slow"}));
  for (const CaseResult& r : results) EXPECT_EQ(r.status, Status::PASS) << r.kernel << ": " << r.message;
  const auto& notes = results[0].notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "made again"), notes.end());
  EXPECT_NE(std::find(notes.begin(), notes.end(), "overrides a built-in reference"), notes.end());
}

TEST(ReferenceLibrariesTest, ALibraryThatNeverComesIsAnErrorNotAWait) {
  const auto throws = ReferenceLibraries::start({{"a", 0}, {"b", 1}}, {}, [](const LibraryReady& ready, const std::atomic<bool>&) {
    ready(0, ReferenceLibrary{true, "/a.so", "", false, 0, {}});
    throw std::runtime_error("no compiler");
  });
  ASSERT_NE(throws->get("a"), nullptr);
  EXPECT_TRUE(throws->get("a")->ok);
  const ReferenceLibrary* b = throws->get("b");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->ok);
  EXPECT_NE(b->log.find("no compiler"), std::string::npos) << b->log;
  EXPECT_EQ(throws->get("not_gathered"), nullptr);
  EXPECT_TRUE(throws->ready("not_gathered"));
  const auto forgets = ReferenceLibraries::start({{"a", 0}}, {}, [](const LibraryReady&, const std::atomic<bool>&) {});
  ASSERT_NE(forgets->get("a"), nullptr);
  EXPECT_NE(forgets->get("a")->log.find("never built"), std::string::npos);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// start_workers: the workers start before the probe, the probe asks one of them, and run_all
// runs the cases on them: as many worker processes as --jobs, not one more for the probe.
TEST(RunnerPool, ThePrestartedWorkersAnswerTheProbeAndRunTheCases) {
  const fs::path pids = fs::temp_directory_path() / ("hk_prestart_pids_" + std::to_string(::getpid()));
  fs::remove_all(pids);
  fs::create_directories(pids);
  setenv("HKCHECK_FAKE_WORKER_PID_DIR", pids.c_str(), 1);
  std::vector<KernelSpec> kernels(4);
  std::vector<CaseTask> tasks;
  for (size_t k = 0; k < kernels.size(); ++k) {
    kernels[k].name = "ok_" + std::to_string(k), kernels[k].manifest = "fake.json", kernels[k].cases = {CaseSpec{"c1", {}, {}}};
    tasks.push_back(CaseTask{&kernels[k], &kernels[k].cases[0], ""});
  }
  int passed = 0;
  {
    Runner r(options(5, Isolation::worker, 2));
    r.start_workers(4);
    std::string why;
    ASSERT_TRUE(r.probe(&why).has_value()) << why;
    r.run_all(tasks, [&](size_t, CaseResult res) { passed += res.status == Status::PASS; });
  }
  unsetenv("HKCHECK_FAKE_WORKER_PID_DIR");
  const auto started = std::distance(fs::directory_iterator(pids), fs::directory_iterator());
  fs::remove_all(pids);
  EXPECT_EQ(passed, 4);
  EXPECT_EQ(started, 2) << "the probe's worker is one of the two";
}

// One kernel's cases: one worker is started ahead (the probe's), not --jobs of them, whose
// contexts would only delay each other's.
TEST(RunnerPool, NoMoreWorkersStartAheadThanAsked) {
  const fs::path pids = fs::temp_directory_path() / ("hk_prestart_one_" + std::to_string(::getpid()));
  fs::remove_all(pids);
  fs::create_directories(pids);
  setenv("HKCHECK_FAKE_WORKER_PID_DIR", pids.c_str(), 1);
  {
    Runner r(options(5, Isolation::worker, 8));
    r.start_workers(1);
    std::string why;
    ASSERT_TRUE(r.probe(&why).has_value()) << why;
  }
  unsetenv("HKCHECK_FAKE_WORKER_PID_DIR");
  const auto started = std::distance(fs::directory_iterator(pids), fs::directory_iterator());
  fs::remove_all(pids);
  EXPECT_EQ(started, 1);
}

}  // namespace
}  // namespace hk
