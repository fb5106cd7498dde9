// One compile at a time per cache key across processes: a run's workers and the compiles made
// ahead of them (compile_ahead.h) share a cache folder, and two of them reaching the same kernel
// configuration would otherwise both compile it. The lock is a file beside the entry, held with
// flock(2) (released by the kernel when its holder dies, so a killed compiler blocks nobody) and
// removed by its holder when done.
#pragma once

#include <string>

namespace hk {

class CompileLock {
 public:
  // Takes the lock at path, waiting for another holder to finish when wait is true. Not held
  // when another process holds it and wait is false (busy()), or when the file cannot be made,
  // e.g. in a read-only cache folder (the caller then compiles unlocked: it costs time at worst).
  CompileLock(std::string path, bool wait);
  ~CompileLock();  // removes the file, then lets the next waiter in
  CompileLock(const CompileLock&) = delete;
  CompileLock& operator=(const CompileLock&) = delete;

  bool held() const { return fd_ >= 0; }
  bool busy() const { return busy_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool busy_ = false;
};

}  // namespace hk
