#include "worker.h"

#include "reference_cache.h"

#include <algorithm>
#include <csignal>
#include <iostream>
#include <malloc.h>
#include <nlohmann/json.hpp>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend.h"
#include "backends/host/isolated_backend.h"
#include "case_exec.h"
#include "case_job.h"
#include "parallel_for.h"
#include "protocol_channel.h"

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

}  // namespace

int run_worker(const WorkerOptions& opt) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent, even a hung kernel
  // A worker allocates and frees tensors of similar sizes case after case. Large blocks would be
  // mmapped and unmapped each time, and every case would fault its pages back in, zeroed (a third
  // of a worker's time on big cases); from the heap, freed memory is reused instead.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  set_parallel_threads(opt.cpu_threads);
  ProtocolChannel chan(opt.protocol_fd);
  if (!chan.ok()) {
    std::cerr << "hkcheck worker: protocol descriptor " << opt.protocol_fd << " is not open\n";
    return 2;
  }
  std::string why;
  std::unique_ptr<Backend> be = open_any(opt, &why);
  if (!be) {
    chan.send({{"type", "hello"}, {"ok", false}, {"error", why}});
    return 0;
  }
  // A host kernel is native code: it runs in a process of its own, apart from the verdict.
  std::string apart;
  try {
    if (be->device().backend == "host") apart = isolate_host_kernels(be);
  } catch (const std::exception& e) {
    chan.send({{"type", "hello"}, {"ok", false}, {"error", e.what()}});
    return 0;
  }
  DeviceInfo dev = be->device();
  // "auto" fell back to the CPU: say why no GPU was used, for the run's metadata.
  if (opt.backend == "auto" && dev.backend == "host" && !why.empty()) dev.note = "no GPU backend could be used: " + why;
  if (!apart.empty()) dev.note += (dev.note.empty() ? "" : "; ") + apart;
  chan.send({{"type", "hello"}, {"ok", true}, {"device", dev}});

  CompileCache cache(opt.cache_dir);
  // Without a cache folder (--no-cache) references are computed every time.
  std::optional<ReferenceCache> references;
  if (!opt.cache_dir.empty()) references.emplace(reference_cache_folder(opt.cache_dir), reference_cache_bound());
  std::string line;
  while (std::getline(std::cin, line)) {
    json req;
    try {
      req = json::parse(line);
    } catch (const std::exception& e) {
      std::cerr << "hkcheck worker: bad request: " << e.what() << "\n";
      return 2;
    }
    if (req.value("type", "") == "exit") break;
    CaseResult r;
    CaseJob job;
    bool sticky = false;
    const json id = req.value("id", json(""));  // echoed, so the parent takes only the answer to its request
    try {
      job = req.at("job").get<CaseJob>();
    } catch (const std::exception& e) {
      r.kernel = req.value("kernel", "");
      r.case_name = req.value("case", "");
      r.message = std::string("the worker could not read the case it was sent: ") + e.what();
      chan.send({{"type", "result"}, {"id", id}, {"result", r}});
      continue;
    }
    chan.send({{"type", "started"}, {"id", id}, {"kernel", job.kernel}, {"case", job.case_name}});
    r = execute_case(*be, job, cache, &sticky, references ? &*references : nullptr);
    chan.send({{"type", "result"}, {"id", id}, {"result", r}});
    if (sticky) return kStickyExit;
  }
  return 0;
}

}  // namespace hk
