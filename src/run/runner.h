// The parent side of isolation: it never loads a GPU library. Cases run in worker processes
// started with posix_spawn; a crash, a GPU fault or a hang costs that case only.
//
// Isolation "worker" (the default): a worker runs many cases in sequence, so the device context
// is created once per worker instead of once per case. The cases of one kernel run in order in
// one worker, in units of at most 16 and of a bounded expected cost, the costliest units first
// (case_schedule.h); a worker is replaced after any verdict but PASS and SKIP. A case that does not pass
// after earlier cases in its worker is run again alone in a fresh worker: when that verdict
// differs, the case is LEAK (state left by the earlier cases changed it), naming them.
// Isolation "case": one fresh worker per case, as --sanitize and repro reruns use.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contracts/worker_protocol.h"
#include "platform/backend.h"
#include "platform/backend_table.h"
#include "run/compile_ahead.h"
#include "model/manifest.h"
#include "contracts/result.h"
#include "refs/reference_libraries.h"
#include "run/prestarted_workers.h"
#include "run/worker_session.h"

namespace hk {

enum class Isolation { worker, case_alone };

struct RunOptions {
  std::string exe;               // this hkcheck binary, started again in worker mode
  std::string backend = "auto";  // becomes the probed backend's name after probe()
  int device = 0;                // the device probe() opens; devices[0] when devices is given
  double timeout_s = 30;         // per case, for its kernel's launches from the first, and each later part (CaseTimeouts)
  double start_timeout_s = kWorkerHelloSeconds;  // for a worker to create its context and say hello
  uint64_t seed = 0;
  std::string cache_dir;
  std::vector<std::string> worker_args;  // passed on to every worker (e.g. the host profile)
  int repeat = 1;                // launches per case on the same inputs (the manifest may ask for more)
  std::vector<std::string> wrapper;  // a program the worker runs under, with its options (--sanitize)
  Isolation isolation = Isolation::worker;
  int jobs = 1;                  // workers per device at once
  std::vector<int> devices;      // device indices run_all spreads the cases over; empty: {device}
  int max_fail = 0;              // run_all starts no case after this many did not pass (-x: 1; 0: no limit)
  int time_launches = 0;         // --time: launches timed after each passing case
  uint64_t memory_limit = 0;     // bytes each worker's processes may hold; 0: no limit (memory_limit.h)
  bool reference_cache = true;   // workers may read reference outputs back from the cache (--no-ref-cache: false)
  int compile_ahead = 0;         // processes compiling the run's kernels ahead of its workers (compile_ahead.h); 0: none
  double setup_timeout_s = 300;  // per case, for its inputs and compile (CaseTimeouts) (--compile-timeout)
  std::string project_root;      // compile cache keys name paths relative to it, in the workers and the compiles ahead ("": absolute)
  // Reference name -> its library, or why it has none, built beside the run (null: none).
  std::shared_ptr<ReferenceLibraries> references;
};

// One case for run_all, and where its repro output goes ("" for none).
struct CaseTask {
  const KernelSpec* kernel = nullptr;
  const CaseSpec* c = nullptr;
  std::string repro_dir;
  double expected_ms = 0;  // what it is expected to take (case_schedule.h): the longest start first
};

class Runner {
 public:
  explicit Runner(RunOptions opt);

  // Starts the workers run_all will use (jobs per device, isolation worker only; at most
  // `at_most`, e.g. the number of kernels, since one kernel's few cases keep one worker busy) in
  // the background, so that their contexts are made while the caller probes and plans. run_all
  // starts any further worker it wants as before.
  void start_workers(size_t at_most);

  // Starts one worker to find the device (and, for "auto", the backend), or asks one that
  // start_workers started (it then goes on to run cases). Returns nothing and sets *why when no
  // device can be used. device < 0: the options' device.
  std::optional<DeviceInfo> probe(std::string* why, int device = -1);

  // Runs one case in a fresh worker and returns its result, whatever happens to the worker,
  // with the manifest's expectation for the probed device applied (XFAIL / XPASS).
  // When the run is interrupted (interrupt.h) the worker is killed and the result is NOT_RUN.
  // repro_dir, when not empty, is where the worker writes the case's output if it fails.
  CaseResult run(const KernelSpec& k, const CaseSpec& c, const std::string& repro_dir = "");

  // Runs every task, `jobs` workers per device at once, as isolation says. on_result gets each
  // result (expectation applied) with the task's index as the case finishes, one call at a
  // time. After an interrupt the tasks not yet started come back NOT_RUN.
  using ResultSink = std::function<void(size_t index, CaseResult result)>;
  void run_all(const std::vector<CaseTask>& tasks, const ResultSink& on_result);

  const RunOptions& options() const { return opt_; }
  // What the last run_all's compiles ahead of its workers did (compile_ahead.h); none when it made none.
  const std::optional<CompileAhead::Tally>& compiled_ahead() const { return compiled_ahead_; }

 private:
  WorkerLaunch launch(int device) const;
  std::unique_ptr<CompileAhead> compile_ahead(const std::vector<CaseTask>& tasks, const std::vector<std::vector<size_t>>& units) const;
  CaseResult run_task(WorkerSession& session, int device, const CaseTask& t, Isolation isolation);
  CaseResult check_alone(CaseResult in_worker, const std::vector<std::string>& before, size_t before_count,
                         const CaseJob& job, const CaseTimeouts& timeout, int device);
  RunOptions opt_;
  std::string arch_;  // the probed device's, for arch-specific expectations
  bool on_host() const { return on_cpu(opt_.backend); }  // for expectations of the host backend
  std::optional<DeviceInfo> device_;  // the first device probed: compiles made ahead are for it
  std::optional<CompileAhead::Tally> compiled_ahead_;
  std::unique_ptr<PrestartedWorkers> prestarted_;  // start_workers'; declared last, so closed first
};

}  // namespace hk
