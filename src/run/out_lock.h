// A run holds DIR/.hkcheck.lock (an flock) while it writes into its results folder, so a second
// run into the same folder is refused at once instead of mixing its journal and reports with the
// first. The lock goes with the process, however it ends.
#pragma once

#include <string>

namespace hk {

class OutDirLock {
 public:
  // Takes the lock of dir (which must exist); on failure returns false with *why naming the folder
  // and, when it can, the pid of the run that holds it.
  bool acquire(const std::string& dir, std::string* why);
  ~OutDirLock();

 private:
  int fd_ = -1;
};

}  // namespace hk
