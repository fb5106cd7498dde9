#include "process/parent_watch.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "process/process_tree.h"

namespace hk {
namespace {

bool stopped(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'T';
}

[[noreturn]] void end_with_parent() {
  end_descendants(getpid(), std::chrono::seconds(5));
  _exit(137);
}

}  // namespace

void watch_parent(pid_t parent, bool resume_when_stopped) {
  std::thread([parent, resume_when_stopped] {
    for (;;) {
      if (getppid() != parent) end_with_parent();
      if (resume_when_stopped && stopped(parent)) kill(parent, SIGCONT);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }).detach();
  // From here the watch ends the worker with its parent; until the thread first runs,
  // a parent's death is seen on its first look.
  prctl(PR_SET_PDEATHSIG, 0);
  if (getppid() != parent) end_with_parent();
}

}  // namespace hk
