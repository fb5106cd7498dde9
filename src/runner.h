// The parent side of isolation: it never loads a GPU library. Each case runs in a worker
// process started with posix_spawn; a crash, a GPU fault or a hang costs that case only.
#pragma once

#include <optional>
#include <string>

#include "backend.h"
#include "manifest.h"
#include "result.h"

namespace hk {

struct RunOptions {
  std::string exe;               // this hkcheck binary, started again in worker mode
  std::string backend = "auto";  // becomes the probed backend's name after probe()
  int device = 0;
  double timeout_s = 30;         // per case, from the request to the result
  double start_timeout_s = 120;  // for a worker to create its context and say hello
  uint64_t seed = 0;
  std::string cache_dir;
  std::vector<std::string> worker_args;  // passed on to every worker (e.g. the host profile)
  int repeat = 1;                // launches per case on the same inputs (the manifest may ask for more)
  std::vector<std::string> wrapper;  // a program the worker runs under, with its options (--sanitize)
};

class Runner {
 public:
  explicit Runner(RunOptions opt) : opt_(std::move(opt)) {}

  // Starts one worker to find the device (and, for "auto", the backend). Returns nothing and
  // sets *why when no device can be used.
  std::optional<DeviceInfo> probe(std::string* why);

  // Runs one case in a fresh worker and returns its result, whatever happens to the worker,
  // with the manifest's expectation for the probed device applied (XFAIL / XPASS).
  // When the run is interrupted (interrupt.h) the worker is killed and the result is NOT_RUN.
  // repro_dir, when not empty, is where the worker writes the case's output if it fails.
  CaseResult run(const KernelSpec& k, const CaseSpec& c, const std::string& repro_dir = "");

  const RunOptions& options() const { return opt_; }

 private:
  std::vector<std::string> worker_argv() const;
  CaseResult run_in_worker(const KernelSpec& k, const CaseSpec& c, const std::string& repro_dir);
  RunOptions opt_;
  std::string arch_;  // the probed device's, for arch-specific expectations
};

}  // namespace hk
