#include "process/orphans.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <mutex>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace hk {
namespace {

struct Child {
  pid_t pid;
  bool zombie;  // it has ended; only reaping is left
};

// The children of this process, from /proc (a process's parent is the 4th field of its stat).
std::vector<Child> children() {
  std::vector<Child> out;
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (const dirent* e = readdir(proc)) {
    const long pid = std::strtol(e->d_name, nullptr, 10);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t paren = line.rfind(')');
    if (paren == std::string::npos || paren + 4 >= line.size()) continue;
    const long ppid = std::strtol(line.c_str() + paren + 4, nullptr, 10);  // ") S PPID"
    if (ppid == self) out.push_back(Child{static_cast<pid_t>(pid), line[paren + 2] == 'Z'});
  }
  closedir(proc);
  return out;
}

// Workers alive (LiveWorkerMark), and the lock that keeps a sweep and a worker's start apart.
std::mutex g_sweep_lock;
int g_live_workers = 0;

}  // namespace

LiveWorkerMark::LiveWorkerMark() {
  std::lock_guard<std::mutex> lock(g_sweep_lock);
  ++g_live_workers;
}

LiveWorkerMark::~LiveWorkerMark() {
  std::lock_guard<std::mutex> lock(g_sweep_lock);
  --g_live_workers;
}

int end_orphans_when_no_worker() {
  std::lock_guard<std::mutex> lock(g_sweep_lock);
  return g_live_workers == 0 ? end_orphans() : 0;
}

void adopt_orphans() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

int end_orphans() {
  int ended = 0;
  // Each kill hands the killed process's own children to this subreaper: rounds until none is
  // left (a chain of any depth), within a bound against a process that forks without end.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    const std::vector<Child> left = children();
    bool alive = false;
    for (const Child& c : left) {
      if (!c.zombie && kill(c.pid, SIGKILL) == 0) ++ended, alive = true;
      while (waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {}
    }
    if (!alive || std::chrono::steady_clock::now() >= deadline) break;
  }
  // Zombies of orphans that ended by themselves.
  while (waitpid(-1, nullptr, WNOHANG) > 0) {}
  return ended;
}

}  // namespace hk
