// A run waiting for a cache lock whose holder was stopped says who holds it, and ends its wait
// when the run is interrupted (a blocking flock in a thread the signal did not reach never did).
#include "process/lock_wait.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <gtest/gtest.h>
#include <thread>

#include "compile/cache_seal.h"
#include "process/interrupt.h"
#include "test_util.h"

namespace hk {
namespace {

TEST(LockWait, AStoppedHolderIsNamedAndAnInterruptEndsTheWait) {
  test::TempDir dir;
  const std::string entry = dir.path() + "/reference-x.so";
  const pid_t holder = fork();
  if (holder == 0) {
    const int fd = ::open((entry + ".lock").c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0 || !lock_exclusive_waiting(fd, "x")) _exit(1);
    raise(SIGSTOP);
    _exit(0);
  }
  int st = 0;
  ASSERT_EQ(waitpid(holder, &st, WUNTRACED), holder);
  ASSERT_TRUE(WIFSTOPPED(st));
  testing::internal::CaptureStderr();
  std::thread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    request_interrupt(SIGINT);
  });
  const auto t0 = std::chrono::steady_clock::now();
  { const CacheEntryLock waiting(entry); }  // returns, unheld, once the run is interrupted
  const auto waited = std::chrono::steady_clock::now() - t0;
  interrupter.join();
  request_interrupt(0);
  const std::string err = testing::internal::GetCapturedStderr();
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  EXPECT_LT(waited, std::chrono::seconds(10));
  EXPECT_NE(err.find("waiting for " + entry + ".lock, held by pid " + std::to_string(holder) + ", stopped"), std::string::npos) << err;
}

}  // namespace
}  // namespace hk
