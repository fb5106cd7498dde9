#include "worker/compile_worker.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "backends/rtc_compile_user.h"
#include "contracts/code_object_resources.h"
#include "compile/compile_cache.h"
#include "compile/compile_attribution.h"
#include "platform/compiler.h"
#include "contracts/compile_messages.h"
#include "contracts/worker_protocol.h"
#include "util/file_util.h"
#include "compile/kernel_file_compile.h"
#include "process/orphans.h"
#include "process/process_tree.h"
#include "process/protocol_channel.h"
#include "platform/backend_table.h"

namespace hk {

namespace {

// Nice enough that a busy core goes to the run's other processes about nine times in ten.
constexpr int kYieldingNiceness = 10;

// What the compiled code says of the kernel (code_object_resources.h), or why it says nothing.
EntryResources read_resources(const std::string& backend, const CompileOutput& c, const std::string& symbol) {
  std::string why;
  EntryResources out;
  const BackendRow* row = find_backend(backend);
  out.figures = code_resources(row ? row->resources : ResourceFormat::none, c.binary, symbol, &why);
  if (!out.figures) out.error = why.empty() ? "no resources for this backend" : why;
  else if (row->resources == ResourceFormat::cubin) add_ptxas_figures(c.log, symbol, *out.figures);
  return out;
}

// The log without the verbose assembler's per-kernel figures, which only resources needed.
std::string without_ptxas_info(const std::string& log) {
  std::string out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("ptxas info", 0) != 0 && line.rfind("ptxas         .", 0) != 0) out += line + "\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A compile ahead of a run's workers (compile_ahead.h), kept under their key when this worker's
// compiler is the one their backend compiles with: the same backend, target and version.
CompileAnswer compile_for_run(const CompileJob& job, const CompileWorkerOptions& opt, Compiler& compiler, CompileCache& cache) {
  CompileAnswer res;
  res.id = job.id;
  const DeviceInfo& device = *job.run_device;
  if (device.backend != opt.backend || device.arch != opt.arch || device.runtime_version != compiler.version()) {
    res.log = "this compile worker's compiler (" + opt.backend + " " + opt.arch + ", " + compiler.version() + ") is not the run's (" +
              device.backend + " " + device.arch + ", " + device.runtime_version + ")";
    return res;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const CompileRequest q{read_file(job.source, "kernel source"), job.source, job.options, job.entries};
  const auto c = cache.get_ahead(device, [&](const CompileRequest& r) { return compiler.compile(r); }, q, &res.cached);
  res.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  res.left_to_another = !c;
  if (c) {
    res.ok = c->ok;
    res.bytes = c->binary.size();
  }
  return res;
}

}  // namespace

int run_compile_worker(const CompileWorkerOptions& opt) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
  adopt_orphans();  // what a compiler starts and leaves (a linker, a child of comgr) ends with this worker
  const struct EndBelow {
    ~EndBelow() { end_descendants(getpid(), std::chrono::seconds(2)); }
  } end_below;
  // Ten above the run's own niceness (a run under `nice` yields too), at most 19; best effort.
  if (opt.yield_cpu) {
    errno = 0;
    const int own = getpriority(PRIO_PROCESS, 0);
    if (errno == 0) setpriority(PRIO_PROCESS, 0, std::min(own + kYieldingNiceness, 19));
  }
  ProtocolChannel chan(opt.protocol_fd);
  if (!chan.ok()) {
    std::cerr << "hkcheck compile worker: protocol descriptor " << opt.protocol_fd << " is not open\n";
    return 2;
  }
  std::unique_ptr<Compiler> compiler;
  WorkerHello hello;
  const BackendRow* row = find_backend(opt.backend);
  if (row && row->id == BackendId::hip) prepare_comgr_cache_for_compile_user();
  try {
    compiler = open_compiler(opt.backend, opt.arch, opt.host, opt.hiprtc_root);
    hello.ok = true;
    hello.compiler = compiler->version();
  } catch (const std::exception& e) {
    hello.error = e.what();
  }
  chan.send(hello);
  if (!hello.ok) return 0;
  // Which compiler and library: a compile is reused only by the same one (hiprtc_root.h).
  const std::string compiler_name = opt.backend + " " + opt.arch + "\n" + hello.compiler + "\n" + opt.hiprtc_root;
  CompileCache cache(opt.cache_dir, opt.project_root);
  std::string line;
  while (std::getline(std::cin, line)) {
    CompileAnswer res;
    try {
      const CompileJob job = nlohmann::json::parse(line).get<CompileJob>();
      res.id = job.id;
      if (job.run_device) {
        chan.send(compile_for_run(job, opt, *compiler, cache));
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      CompileRequest q{read_file(job.source, "kernel source"), job.source, job.options, job.entries};
      if (row && *row->resource_log_option) q.options.push_back(row->resource_log_option);  // spills and shared memory per kernel
      CompileOutput c = cache.get(compiler_name, opt.backend, [&](const CompileRequest& r) { return compiler->compile(r); }, q, &res.cached);
      // Every entry's figures: the parent answers every kernel of the file from this one compile.
      if (c.ok)
        for (const auto& [name, symbol] : c.symbols) res.resources_by_entry[name] = read_resources(opt.backend, c, symbol);
      c.log = without_ptxas_info(c.log);
      res.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      res.ok = c.ok;
      res.log = c.log;
      res.bytes = c.binary.size();
      res.symbols = c.symbols;
      res.entry_errors = c.entry_errors;
      if (!c.ok)
        for (const std::string& entry : q.entries) res.summaries[entry] = compile_error_summary(c.log, q.source, job.source, entry, q.entries);
    } catch (const std::exception& e) {
      res.ok = false;
      res.log = std::string("hkcheck: ") + e.what();
    }
    chan.send(res);
  }
  return 0;
}

}  // namespace hk
