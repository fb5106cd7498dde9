#include "backends/host/bounded_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

#include <grp.h>

#include "process/compile_user.h"
#include "process/interrupt.h"
#include "process/orphans.h"

extern char** environ;

namespace hk::host {
namespace {

// argv[0] as execvp would find it, resolved before a fork (the child may not allocate).
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/bin:/bin";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return "";
}

void kill_own_group(int) { ::kill(0, SIGKILL); }

// Closes the descriptors [first, last] (async-signal-safe: close_range, else close one by one up
// to the descriptor limit).
void close_between(unsigned first, unsigned last) {
  if (first > last) return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, first, last, 0) == 0) return;
#endif
  rlimit lim{};
  const unsigned bound = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY ? static_cast<unsigned>(lim.rlim_cur) : 65536u;
  for (unsigned fd = first; fd <= last && fd < bound; ++fd) close(static_cast<int>(fd));
}

// Every descriptor from 3 up but the two the command needs. The supervisor never execs, so
// close-on-exec does not close what it inherited from its threaded parent: a cache entry's flock
// (cache_seal.h) that another thread held at the fork then stayed held for the command's whole
// time, and whoever waited for the entry waited that long (a cold run's reference libraries
// waited 5 s for the runtime object, held by the precompiled header's supervisor).
// keep: sorted, and made before the fork (the child may not allocate).
void close_inherited(const int* keep, size_t n) {
  unsigned from = 3;
  for (size_t i = 0; i < n; ++i) {
    if (keep[i] < 0 || static_cast<unsigned>(keep[i]) < from) continue;  // a standard descriptor: never closed here
    close_between(from, static_cast<unsigned>(keep[i]) - 1);
    from = static_cast<unsigned>(keep[i]) + 1;
  }
  close_between(from, ~0u);
}

// What the command child does besides exec, made before the fork: the descriptors it keeps (the
// folders CompileAccess reaches it through), its environment, and whether it leaves root.
struct Child {
  std::vector<int> keep;         // sorted: the log, /dev/null and the folders
  std::vector<int> folders;      // inherited by the command: close-on-exec cleared
  std::vector<std::string> env;  // the environment, TMPDIR replaced when given
  std::vector<char*> envp;
  bool leave_root = false;
  std::string cwd;  // under root: the command's own folder (hkcheck's may be root's alone, and -include looks there first)
};

// Root leaves for the compile user (compile_user.h); false when it could not.
bool leave_root_for_compile_user() {
  return setgroups(0, nullptr) == 0 && setresgid(kCompileUserId, kCompileUserId, kCompileUserId) == 0 &&
         setresuid(kCompileUserId, kCompileUserId, kCompileUserId) == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
}

// The supervisor, in the forked child: only async-signal-safe calls (the parent has threads).
// It leads a new process group, kills it when its parent thread dies or it is told to stop, and
// otherwise waits for the command and exits as it did.
[[noreturn]] void supervise(const char* program, char* const* argv, int null_fd, int log_fd, pid_t parent, rlim_t memory, const Child& child) {
  setpgid(0, 0);
  close_inherited(child.keep.data(), child.keep.size());
  struct sigaction sa {};
  sa.sa_handler = kill_own_group;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);  // the parent died before the line above
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const pid_t command = fork();
  if (command == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the supervisor killed alone (SIGKILL of its pid) takes the command along
    dup2(null_fd, 0), dup2(log_fd, 1), dup2(log_fd, 2);
    if (memory > 0) {
      const rlimit lim{memory, memory};
      setrlimit(RLIMIT_AS, &lim);
    }
    for (int fd : child.folders) fcntl(fd, F_SETFD, 0);
    if (child.leave_root && !leave_root_for_compile_user()) {
      const char msg[] = "hkcheck: the compiler was not started: it could not leave root for its own user\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(126);
    }
    if (child.leave_root) prctl(PR_SET_PDEATHSIG, SIGKILL);  // a change of user cleared it
    if (!child.cwd.empty() && chdir(child.cwd.c_str()) != 0) _exit(126);
    execve(program, argv, child.envp.data());  // the handlers above are reset to the default by exec
    const char msg[] = "cannot execute the compiler\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  if (command < 0) _exit(127);
  int st = 0;
  while (waitpid(command, &st, 0) < 0 && errno == EINTR) {}
  _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0));
}

// The exit code given for a command whose process this one could not reap (another part of the
// program reaped it): not a success, whatever it did.
constexpr int kReapedElsewhere = 255;

// Waits for the supervisor (pid, its group's id) until it exits, the limit passes or the run is
// interrupted; the group is killed in the last two cases, and before the supervisor is reaped in
// all (a compiler's child left by a compiler that crashed), while the zombie still holds the id.
int wait_bounded(pid_t pid, double limit_s, CommandRun& r) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    siginfo_t info{};
    const int w = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (w == 0 && info.si_pid == pid) break;
    if (w < 0 && errno == ECHILD) return kReapedElsewhere;  // never loop on a child that is gone
    if (!r.interrupted_by && !r.timed_out) {
      if (const int sig = interrupt_signal()) {
        r.interrupted_by = sig;
        ::kill(-pid, SIGKILL);
      } else if (limit_s > 0 && std::chrono::duration<double>(Clock::now() - t0).count() >= limit_s) {
        r.timed_out = true;
        ::kill(-pid, SIGKILL);
      }
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);
  int st = 0;
  int got;
  while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {}
  if (got != pid) return kReapedElsewhere;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

}  // namespace

CommandRun run_bounded(const std::vector<std::string>& argv, const std::string& log_path, const CommandBounds& bounds,
                       const CommandReach& reach) {
  const double limit_s = bounds.seconds;
  CommandRun r;
  const std::string program = find_program(argv.at(0));
  if (program.empty()) {
    r.output = fmt::format("cannot run '{}': not found in PATH", argv[0]);
    return r;
  }
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    r.output = fmt::format("cannot open {} for the compiler's output: {}", log_path, std::strerror(errno));
    if (log_fd >= 0) close(log_fd);
    if (null_fd >= 0) close(null_fd);
    return r;
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  Child child;
  child.folders = reach.folders;
  child.keep = reach.folders;
  child.keep.insert(child.keep.end(), {null_fd, log_fd});
  std::sort(child.keep.begin(), child.keep.end());
  child.leave_root = reach.as_compile_user && compiles_unprivileged();
  if (child.leave_root) child.cwd = reach.temp_dir.empty() ? "/" : reach.temp_dir;
  for (char** e = environ; *e; ++e)
    if (reach.temp_dir.empty() || std::strncmp(*e, "TMPDIR=", 7) != 0) child.env.emplace_back(*e);
  if (!reach.temp_dir.empty()) child.env.push_back("TMPDIR=" + reach.temp_dir);
  for (std::string& e : child.env) child.envp.push_back(e.data());
  child.envp.push_back(nullptr);
  const pid_t parent = getpid();
  const LiveWorkerMark spared;  // an orphan sweep of this process (orphans.h) leaves the command alone
  const pid_t pid = fork();
  if (pid == 0) supervise(program.c_str(), cargv.data(), null_fd, log_fd, parent, static_cast<rlim_t>(bounds.memory_bytes), child);
  close(log_fd), close(null_fd);
  if (pid < 0) {
    r.output = fmt::format("cannot run '{}': fork: {}", argv[0], std::strerror(errno));
    return r;
  }
  setpgid(pid, pid);  // as the child does: a kill of the group cannot come before it exists
  r.started = true;
  r.exit_code = wait_bounded(pid, limit_s, r);
  std::ifstream in(log_path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  if (r.exit_code == kReapedElsewhere) r.output += "\nhkcheck: the command's process was ended and reaped by another part of hkcheck\n";
  return r;
}

std::string stopped_because(const CommandRun& r, double limit_s) {
  if (r.timed_out) return fmt::format("took longer than {:g} s (--compile-timeout), and was stopped", limit_s);
  if (r.interrupted_by) return "was stopped: the run was interrupted by " + signal_label(r.interrupted_by);
  return "";
}

}  // namespace hk::host
