// A command (the system C++ compiler) run to its end within a time limit, and nothing of it left
// behind whatever happens to hkcheck. It runs in a process group of its own under a small
// supervisor process: the group is killed when the limit is hit, when the run is interrupted
// (SIGINT or SIGTERM to hkcheck), and when the thread that started it dies, hkcheck killed by
// SIGKILL included (PR_SET_PDEATHSIG reaches the supervisor, which kills the group: g++'s own
// children, cc1plus, as and ld, die with it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hk::host {

// What one compile of a reference library may take unless --compile-timeout says otherwise.
inline constexpr double kDefaultCompileLimitSeconds = 300;

// What a command may take: seconds of wall time, and bytes of address space (RLIMIT_AS of the
// command and what it starts: --memory-limit for reference compiles, which took 2.1 GiB past a
// limit of 512 MiB). 0: no bound.
struct CommandBounds {
  CommandBounds(double s = 0, uint64_t bytes = 0) : seconds(s), memory_bytes(bytes) {}  // NOLINT: a time alone reads as before
  double seconds;
  uint64_t memory_bytes;
};

struct CommandRun {
  bool started = false;
  int exit_code = -1;
  std::string output;      // stdout and stderr together
  bool timed_out = false;  // stopped at its time limit
  int interrupted_by = 0;  // the signal that interrupted the run, when it stopped the command
};

// How a compiler runs (compile_user.h): under root as the compile user, reaching what every user
// may, the folders of descriptors it inherits, and its own folder (TMPDIR and working folder).
struct CommandReach {
  std::vector<int> folders;
  std::string temp_dir;  // "": hkcheck's own
  bool as_compile_user = false;
};

// Runs argv with its output into log_path and waits, at most limit_s seconds (0: no limit). It
// forks: callers are the parent and host-backend workers, which load no GPU library (a GPU
// worker compiles with NVRTC or hipRTC in-process). With as_compile_user, under root, the command
// runs as the compile user, and is not started when it cannot be.
CommandRun run_bounded(const std::vector<std::string>& argv, const std::string& log_path, const CommandBounds& bounds,
                       const CommandReach& reach = {});

// "took longer than 300 s, and was stopped" or "was stopped: the run was interrupted by SIGINT",
// or "" when the command was not stopped.
std::string stopped_because(const CommandRun& r, double limit_s);

}  // namespace hk::host
