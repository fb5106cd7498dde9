// The parent's handling of workers that crash, hang, exit early or never start, using a fake
// worker (tests/fake_worker.cpp) in place of `hkcheck --worker`.
#include "run/runner.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <thread>

#include "process/interrupt.h"

namespace hk {
namespace {

KernelSpec kernel(const std::string& name) {
  KernelSpec k;
  k.name = name;
  k.manifest = "fake.json";
  return k;
}

CaseResult run_fake(const std::string& kernel_name, double timeout = 5, const std::string& mode = "fake") {
  Runner r(RunOptions{FAKE_WORKER_PATH, mode, 0, timeout, 5, 0, ""});
  return r.run(kernel(kernel_name), CaseSpec{"c", {}, {}});
}

TEST(Runner, ProbeReportsTheDevice) {
  Runner r(RunOptions{FAKE_WORKER_PATH, "fake", 0, 5, 5, 0, ""});
  std::string why;
  const auto dev = r.probe(&why);
  ASSERT_TRUE(dev) << why;
  EXPECT_EQ(dev->name, "Fake GPU 1GB");
}

TEST(Runner, ProbeExplainsAMissingDevice) {
  Runner r(RunOptions{FAKE_WORKER_PATH, "no_device", 0, 5, 5, 0, ""});
  std::string why;
  EXPECT_FALSE(r.probe(&why));
  EXPECT_EQ(why, "fake: no device");
}

// A worker binary of another hkcheck build (another protocol version, or none named) is refused
// at its hello, by name, never misread.
TEST(Runner, AWorkerOfAnotherProtocolVersionIsRefusedAtHello) {
  for (const char* mode : {"other_protocol", "no_protocol"}) {
    Runner r(RunOptions{FAKE_WORKER_PATH, mode, 0, 5, 5, 0, ""});
    std::string why;
    EXPECT_FALSE(r.probe(&why)) << mode;
    EXPECT_NE(why.find("protocol"), std::string::npos) << why;
    EXPECT_NE(why.find("another hkcheck build"), std::string::npos) << why;
    EXPECT_NE(why.find(FAKE_WORKER_PATH), std::string::npos) << why;
    const CaseResult c = run_fake("ok", 5, mode);
    EXPECT_EQ(c.status, Status::ERROR) << mode;
    EXPECT_NE(c.message.find("another hkcheck build"), std::string::npos) << c.message;
  }
}

TEST(Runner, HealthyCasePasses) {
  const CaseResult r = run_fake("ok");
  EXPECT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_GT(r.timings.wall_ms, 0);
}

TEST(Runner, SegfaultIsACrashOfThatCaseOnly) {
  const CaseResult r = run_fake("segv");
  EXPECT_EQ(r.status, Status::CRASH);
  EXPECT_NE(r.message.find("SIGSEGV"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("fake worker running segv"), std::string::npos) << "the worker's output is kept";
  EXPECT_EQ(run_fake("ok").status, Status::PASS);  // the next case is unaffected
}

TEST(Runner, AbortIsACrash) {
  const CaseResult r = run_fake("abort");
  EXPECT_EQ(r.status, Status::CRASH);
  EXPECT_NE(r.message.find("SIGABRT"), std::string::npos) << r.message;
}

TEST(Runner, HangIsKilledAtTheTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  const CaseResult r = run_fake("hang", 1.0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, Status::TIMEOUT);
  EXPECT_GE(s, 1.0);
  EXPECT_LT(s, 2.0) << "TIMEOUT must come within the timeout plus one second";
  EXPECT_EQ(run_fake("ok").status, Status::PASS);
}

// The case timeout is the kernel's, from its first launch: a case whose compile or inputs never
// end (a loaded machine, a hung compiler) is an ERROR saying the kernel never ran, at the
// setup's own limit (--compile-timeout), never a TIMEOUT of the kernel at --timeout.
TEST(Runner, ASetupThatNeverEndsIsAnErrorAtItsOwnLimitNotATimeout) {
  RunOptions o{FAKE_WORKER_PATH, "fake", 0, 0.5, 5, 0, ""};
  o.setup_timeout_s = 1.5;
  Runner runner(o);
  const auto t0 = std::chrono::steady_clock::now();
  const CaseResult r = runner.run(kernel("setup_hang"), CaseSpec{"c", {}, {}});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, Status::ERROR) << r.message;
  EXPECT_EQ(r.reason, "SETUP_TIMEOUT");
  EXPECT_NE(r.message.find("the kernel never ran"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("--compile-timeout"), std::string::npos) << r.message;
  EXPECT_GE(s, 1.5) << "the kernel's 0.5 s must not bound the setup";
}

// --time's launches come after the verdict and have a limit of their own: past it the case keeps
// the verdict of its checked launches, with a note, and is never a TIMEOUT.
TEST(Runner, TimedLaunchesPastTheirLimitKeepTheCheckedVerdict) {
  RunOptions o{FAKE_WORKER_PATH, "fake", 0, 1.0, 5, 0, ""};
  o.time_launches = 20;
  Runner runner(o);
  const CaseResult r = runner.run(kernel("timing_hang"), CaseSpec{"c", {}, {}});
  EXPECT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.find("no timing: the 20 timed launches") == 0; }))
      << ::testing::PrintToString(r.notes);
}

TEST(Runner, EarlyExitIsACrashWithTheExitCode) {
  const CaseResult r = run_fake("early_exit");
  EXPECT_EQ(r.status, Status::CRASH);
  EXPECT_NE(r.message.find("exit code 7"), std::string::npos) << r.message;
}

TEST(Runner, WorkerThatNeverSaysHelloIsAnError) {
  const CaseResult r = run_fake("ok", 5, "silent");
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("exit code 5"), std::string::npos) << r.message;
}

// A line that answers nothing (a kernel printing on the descriptor) is not the harness's error:
// it is ignored and counted, and a worker that never answers then times out.
TEST(Runner, GarbageOnTheProtocolIsIgnoredAndCounted) {
  const CaseResult r = run_fake("garbage", 1.0);
  EXPECT_EQ(r.status, Status::TIMEOUT) << r.message;
  bool counted = false;
  for (const std::string& n : r.notes) counted |= n.find("ignored 1 line(s)") != std::string::npos;
  EXPECT_TRUE(counted) << "a note should count the ignored line";
}

TEST(Runner, InterruptKillsTheRunningCaseAndMarksItNotRun) {
  std::thread later([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_interrupt(SIGTERM);
  });
  const auto t0 = std::chrono::steady_clock::now();
  const CaseResult r = run_fake("hang", 10.0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  later.join();
  request_interrupt(0);  // the flag is process-wide: clear it for the next test
  EXPECT_EQ(r.status, Status::NOT_RUN);
  EXPECT_NE(r.message.find("SIGTERM"), std::string::npos) << r.message;
  EXPECT_LT(s, 1.5) << "an interrupt must not wait for the case's timeout";
}

TEST(Runner, AResultLineThatDoesNotAnswerTheRequestIsIgnored) {
  const CaseResult r = run_fake("forge");
  EXPECT_EQ(r.status, Status::FAIL) << "the forged PASS must not be taken: " << r.message;
  EXPECT_EQ(r.message, "fake: the real verdict");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("ignored 1 line"), std::string::npos) << r.notes.back();
}

TEST(Runner, AWorkerThatClosesItsProtocolIsACrashWithinSeconds) {
  const auto t0 = std::chrono::steady_clock::now();
  const CaseResult r = run_fake("close_protocol", 30);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(r.status, Status::CRASH);
  EXPECT_NE(r.message.find("closed its protocol descriptor"), std::string::npos) << r.message;
}

TEST(Runner, MissingWorkerBinaryIsAnError) {
  Runner r(RunOptions{"/nonexistent/hkcheck", "fake", 0, 5, 5, 0, ""});
  const CaseResult res = r.run(kernel("ok"), CaseSpec{"c", {}, {}});
  EXPECT_NE(res.status, Status::PASS);
}

}  // namespace
}  // namespace hk
