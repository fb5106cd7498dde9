#include "run/out_lock.h"

#include "util/file_util.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace hk {

bool OutDirLock::acquire(const std::string& dir, std::string* why) {
  const std::string path = dir + "/.hkcheck.lock";
  std::string replaced;
  fd_ = open_no_follow(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644, true, &replaced);  // CLOEXEC: workers must not hold it
  if (!replaced.empty()) fmt::print(stderr, "hkcheck: {}\n", replaced);
  if (fd_ < 0) {
    *why = fmt::format("{}: cannot create the lock file: {}", path, std::strerror(errno));
    return false;
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    *why = fmt::format("another hkcheck run{} is writing into {}; wait for it, or give this run another --out",
                       n > 0 ? " (pid " + std::string(pid, static_cast<size_t>(n)) + ")" : std::string(), dir);
    ::close(fd_);
    fd_ = -1;
    return false;
  }
  const std::string me = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, me.data(), me.size(), 0);  // for the message above only
  }
  return true;
}

OutDirLock::~OutDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace hk
