// The parent's end of one worker process that runs cases in sequence (worker.h has the
// protocol). The worker is started on the first case and kept for the next ones until a result
// leaves it unusable or untrusted: a crash, a timeout, an interrupt, a protocol error, or any
// verdict other than PASS and SKIP (a failing kernel may have left the device in a bad state).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contracts/worker_protocol.h"
#include "platform/backend.h"
#include "contracts/case_job.h"
#include "contracts/result.h"

namespace hk {

class LiveWorkerMark;
class Subprocess;

// How long each part of a case may take (case_phase.h), each from its own start. kernel_s: the
// kernel's launches (TIMEOUT past it); --time's launches (no timing past it; the verdict stands);
// the reference and the checks (an ERROR of the reference). setup_s: inputs and compile before
// the first launch, which wait for the CPU on a loaded machine (an ERROR saying the kernel never ran).
struct CaseTimeouts {
  double kernel_s = 30;
  double setup_s = 300;
};

struct WorkerLaunch {
  std::vector<std::string> argv;  // the worker's command line (a wrapper such as compute-sanitizer first)
  double start_timeout_s = kWorkerHelloSeconds;   // for the worker to open its device and say hello
  std::vector<std::string> env;   // "NAME=value" for the worker's environment (which GPU it sees)
  uint64_t memory_limit = 0;      // bytes the worker's processes may hold while a case runs; 0: none
};

class WorkerSession {
 public:
  explicit WorkerSession(WorkerLaunch launch);
  ~WorkerSession();
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;

  // Starts the worker now (run() does it when needed) and returns its device, or nothing with
  // *why. An interrupt while waiting counts as a failure to start.
  std::optional<DeviceInfo> start(std::string* why);

  // Runs job, each of its parts within its own limit. Whatever happens to the worker, the case
  // gets a result (CRASH, TIMEOUT, NOT_RUN on interrupt, ERROR when the worker could not start or
  // the case's setup ran out of time); the timings' wall time is the parent's.
  CaseResult run(const CaseJob& job, const CaseTimeouts& timeouts);

  // Cases the current worker has run, oldest first ("kernel / case"); empty for a fresh one.
  const std::vector<std::string>& history() const { return history_; }
  bool running() const { return worker_ != nullptr; }

  // Asks the worker to exit, and kills it if it does not within a few seconds.
  void close();

 private:
  // Hands request to the worker, starting one first (again once, when the one there died idle);
  // false, with r saying why, when none took it.
  bool sent(const std::string& request, CaseResult& r, double* start_ms);
  // Reads the worker's messages for request id until its result; false, with r saying how the
  // case was lost (a timeout, a crash, a flood, the memory limit), when the worker was discarded.
  bool answered(const CaseJob& job, const std::string& id, const CaseTimeouts& timeouts, CaseResult& r);
  void discard();  // kills and reaps the worker
  WorkerLaunch launch_;
  std::unique_ptr<LiveWorkerMark> alive_;  // held from before the worker starts until it is reaped
  std::unique_ptr<Subprocess> worker_;
  std::vector<std::string> history_;
};

}  // namespace hk
