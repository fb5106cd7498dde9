#include "worker/worker.h"

#include "contracts/case_phase.h"
#include "worker/device_inputs.h"
#include "refs/reference_cache.h"

#include <algorithm>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sys/prctl.h>
#include <unistd.h>

#include "platform/backend.h"
#include "backends/host/isolated_backend.h"
#include "worker/case_exec.h"
#include "contracts/case_job.h"
#include "process/orphans.h"
#include "contracts/worker_protocol.h"
#include "util/parallel_for.h"
#include "process/parent_watch.h"
#include "process/process_tree.h"
#include "process/protocol_channel.h"
#include "worker/worker_heap.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

using nlohmann::json;

std::unique_ptr<Backend> open_any(const WorkerOptions& opt, std::string* why) {
  std::vector<std::string> names = opt.backend == "auto" ? backend_names() : std::vector<std::string>{opt.backend};
  for (const auto& n : names) {
    try {
      return open_backend(n, opt.device, opt.host);
    } catch (const std::exception& e) {
      *why += (why->empty() ? "" : "; ") + n + ": " + e.what();
    }
  }
  if (names.empty()) *why = "this hkcheck was built without any GPU backend";
  return nullptr;
}

// What a kernel left running (processes adopted by this subreaper) ends with the worker.
int end_below(int code) {
  end_descendants(getpid(), std::chrono::seconds(2));
  return code;
}

}  // namespace

int run_worker(const WorkerOptions& opt) {
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent, even a hung kernel (until watch_parent)
  if (getppid() != parent) return 2;
  adopt_orphans();  // what a kernel's processes leave behind (setsid chains) stays below this worker
  keep_freed_memory();  // reused case after case, not faulted in afresh (worker_heap.h)
  set_parallel_threads(opt.cpu_threads);
  ProtocolChannel chan(opt.protocol_fd);
  if (!chan.ok()) {
    std::cerr << "hkcheck worker: protocol descriptor " << opt.protocol_fd << " is not open\n";
    return 2;
  }
  WorkerHello hello;
  std::unique_ptr<Backend> be = open_any(opt, &hello.error);
  if (!be) {
    chan.send(hello);
    return 0;
  }
  // A host kernel is native code: it runs in a process of its own, apart from the verdict.
  std::string apart;
  try {
    if (on_cpu(be->device().backend)) apart = isolate_host_kernels(be);
  } catch (const std::exception& e) {
    hello.error = e.what();
    chan.send(hello);
    return 0;
  }
  // From here the worker may have threads: the watch ends what is below it with hkcheck.
  watch_parent(parent, opt.resume_stopped_parent);
  DeviceInfo dev = be->device();
  // "auto" fell back to the CPU: say why no GPU was used, for the run's metadata.
  if (!find_backend(opt.backend) && on_cpu(dev.backend) && !hello.error.empty()) dev.note = "no GPU backend could be used: " + hello.error;
  if (!apart.empty()) dev.note += (dev.note.empty() ? "" : "; ") + apart;
  hello.ok = true;
  hello.error.clear();
  hello.device = dev;
  chan.send(hello);

  CompileCache cache(opt.cache_dir, opt.project_root);
  // Without a cache folder (--no-cache) references are computed every time.
  std::optional<ReferenceCache> references;
  if (!opt.cache_dir.empty()) references.emplace(reference_cache_folder(opt.cache_dir), reference_cache_bound());
  DeviceInputs device_inputs(*be, cache);
  std::string line;
  while (std::getline(std::cin, line)) {
    CaseRequest req;
    try {
      req = json::parse(line).get<CaseRequest>();
    } catch (const std::exception& e) {
      std::cerr << "hkcheck worker: bad request: " << e.what() << "\n";
      return 2;
    }
    if (req.exit) break;
    // The id is echoed, so that the parent takes only the answer to its request.
    CaseAnswer answer{{"result", req.id}, req.kernel, req.case_name, CaseResult{}, ""};
    if (!req.job) {
      answer.result->kernel = req.kernel;
      answer.result->case_name = req.case_name;
      answer.result->message = "the worker could not read the case it was sent: " + req.job_error;
      chan.send(answer);
      continue;
    }
    chan.send(CaseAnswer{{"started", req.id}, req.kernel, req.case_name, std::nullopt, ""});
    set_case_phase_sink([&](const std::string& phase, const CaseResult* checked) {
      CaseAnswer told{{"phase", req.id}, req.kernel, req.case_name, std::nullopt, phase};
      if (checked) told.checked = *checked;
      chan.send(told);
    });
    bool sticky = false;
    answer.result = execute_case(*be, *req.job, cache, &sticky, references ? &*references : nullptr, &device_inputs);
    set_case_phase_sink(nullptr);
    chan.send(answer);
    if (sticky) return end_below(kStickyExit);
    release_freed_memory_when_short();
  }
  return end_below(0);
}

}  // namespace hk
