// Compiles made ahead of a run's workers. A cold run's workers compile each kernel configuration
// themselves, one at a time, while NVRTC uses one core: on a 16-core H100 host its 8 workers left
// half the cores idle for the 197 s of compiling an --all run asks for. These processes (compile
// workers, compile_worker.h, which need no device) compile the run's configurations in the order
// the workers will reach them and keep them in the compile cache under the key the workers look
// up (CompileCache::get_ahead). The cache is the only channel: a worker that finds a compile kept
// loads it, one that finds it being made waits for it (compile_lock.h), and one that gets there
// first compiles it itself while these leave it alone. Nothing a worker reports depends on which
// process compiled: the key holds everything the compile depends on.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "platform/backend.h"
#include "compile/compile_cache.h"
#include "contracts/compile_messages.h"
#include "model/manifest.h"
#include "process/orphans.h"

namespace hk {

// The distinct compiles of cases on device, in the cases' order: each kernel file once per
// configuration, as a worker would request it (case_compile). Cases whose plan fails or whose file
// cannot be read are left out, and so are compiles kept already (when kept is given).
std::vector<CompileJob> ahead_compile_jobs(const std::vector<std::pair<const KernelSpec*, const CaseSpec*>>& cases, const DeviceInfo& device,
                                           uint64_t seed, int repeat, const CompileCache* kept = nullptr);

// HKCHECK_COMPILE_AHEAD when set to a whole number (0 turns compiling ahead off; for benches),
// else the cores the run's workers leave: cores - workers, at least 0.
int compile_ahead_processes(int workers);

struct CompileAheadOptions {
  std::string exe;        // this hkcheck, started in --compile-worker mode
  std::string cache_dir;  // the run's workers' compile cache
  std::string project_root;  // as the workers' (--project-root): the keys name paths relative to it
  int processes = 0;
  double timeout_s = 30;  // a compile that takes longer is killed: the worker that needs it compiles it itself
};

class CompileAhead {
 public:
  // Starts the processes on the jobs (nothing when processes or the jobs are none).
  CompileAhead(CompileAheadOptions opt, std::vector<CompileJob> jobs);
  // The same with the jobs made by make_jobs on a thread of its own: what the run's workers do
  // meanwhile is not held up by it (a warm --all plans its 1910 cases' compiles to find none).
  CompileAhead(CompileAheadOptions opt, std::function<std::vector<CompileJob>()> make_jobs);
  ~CompileAhead();  // stop()
  CompileAhead(const CompileAhead&) = delete;
  CompileAhead& operator=(const CompileAhead&) = delete;

  // Ends the processes, a compile in progress included (its lock goes with it), and waits for them.
  void stop();

  // Every process has ended: the jobs are done, or no compiler like the run's could be started.
  bool finished() const { return running_ == 0; }

  struct Tally {
    int processes = 0, jobs = 0;  // started, and compiles asked for
    int made = 0, found = 0, left_to_workers = 0, failed = 0;  // of the jobs answered
  };
  Tally tally() const;

 private:
  void feed();  // one process's thread, started by the planner
  CompileAheadOptions opt_;
  std::vector<CompileJob> jobs_;  // written by the planner before the feeders start
  std::atomic<size_t> next_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<int> processes_{0}, jobs_count_{0};
  std::atomic<int> made_{0}, found_{0}, left_{0}, failed_{0}, running_{0};
  std::unique_ptr<LiveWorkerMark> mark_;  // another runner's orphan sweep spares these processes
  std::thread planner_;  // makes the jobs, then starts the feeders and waits for them
};

}  // namespace hk
