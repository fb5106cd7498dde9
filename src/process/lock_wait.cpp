#include "process/lock_wait.h"

#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fmt/format.h>
#include <string>
#include <thread>

#include "process/interrupt.h"
#include "process/process_tree.h"

namespace hk {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr auto kSayAfter = std::chrono::seconds(2);

}  // namespace

std::string lock_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  const long pid = n > 0 ? std::strtol(buf, nullptr, 10) : 0;
  if (pid <= 0) return "another process";
  const char state = state_of(static_cast<pid_t>(pid));
  if (state == 'T' || state == 't') return fmt::format("pid {}, stopped (kill -CONT {} resumes it)", pid, pid);
  return fmt::format("pid {}", pid);
}

bool lock_exclusive_waiting(int fd, const std::string& what) {
  const auto t0 = std::chrono::steady_clock::now();
  bool said = false;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (interrupt_signal()) {
      errno = EINTR;
      return false;
    }
    if (!said && std::chrono::steady_clock::now() - t0 >= kSayAfter) {
      fmt::print(stderr, "hkcheck: waiting for {}, held by {}\n", what, lock_holder(fd));
      said = true;
    }
    std::this_thread::sleep_for(kPoll);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  return true;
}

}  // namespace hk
