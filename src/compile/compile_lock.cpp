#include "compile/compile_lock.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process/lock_wait.h"

namespace hk {

CompileLock::CompileLock(std::string path, bool wait) : path_(std::move(path)) {
  // The holder removes the file before it lets go: a waiter that then gets the lock holds a file
  // nobody else will open, so it tries again on the file now at the path.
  for (;;) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return;
    int rc;
    if (wait) {
      rc = lock_exclusive_waiting(fd, path_) ? 0 : -1;
    } else {
      while ((rc = ::flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
      }
    }
    if (rc != 0) {
      busy_ = !wait && errno == EWOULDBLOCK;
      ::close(fd);
      return;
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
}

CompileLock::~CompileLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace hk
