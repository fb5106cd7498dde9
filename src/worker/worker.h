// Worker mode: the process that touches the GPU. The parent starts it with fork+exec
// (posix_spawn) as `hkcheck --worker ...` and speaks JSON lines with it (contracts/worker_protocol.h):
// a WorkerHello naming its device on the protocol fd, then for each CaseRequest on stdin (the
// case planned by the parent, case_job.h) a "started" and a "result" CaseAnswer carrying the
// request's id; {"type":"exit"} or the end of input ends it.
// A worker runs any number of cases in sequence, each program loaded once; after a sticky device
// fault it reports the case and exits with kStickyExit, since only a new process gets a working
// context. A job it cannot read gets an ERROR result and the worker goes on.
#pragma once

#include <string>

#include "contracts/worker_protocol.h"
#include "platform/backend.h"

namespace hk {

struct WorkerOptions {
  std::string backend;  // "auto" tries each built backend in turn
  int device = 0;
  int protocol_fd = kWorkerProtocolFd;
  std::string cache_dir;
  std::string project_root;  // compile cache keys name paths relative to it (compile_cache.h)
  HostOptions host;
  int cpu_threads = 1;  // for the data-parallel loops of a case (parallel_for.h)
  bool resume_stopped_parent = false;  // hkcheck has no terminal: SIGCONT it when found stopped
};

constexpr int kStickyExit = 3;

int run_worker(const WorkerOptions& opt);

}  // namespace hk
