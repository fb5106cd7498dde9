#include "app/compile_only.h"
#include "model/exit_codes.h"
#include "report/reporters.h"
#include "model/kernel_entries.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "contracts/case_job.h"
#include "model/case_plan.h"
#include "model/plan_case.h"
#include "contracts/code_object_resources.h"
#include "model/compile_target.h"
#include "contracts/compile_messages.h"
#include "contracts/worker_protocol.h"
#include "platform/hiprtc_root.h"
#include "model/kernel_params.h"
#include "process/interrupt.h"
#include "process/orphans.h"
#include "check/apply_expectation.h"
#include "model/expectation.h"
#include "report/report.h"
#include "process/subprocess.h"
#include "platform/targets.h"
#include "util/text_bound.h"
#include "platform/backend_table.h"
#include "util/threads.h"
#include "model/status.h"

namespace hk {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// One compile: a kernel in one configuration (its defines) for one target.
struct CompileItem {
  const KernelSpec* kernel;
  const CaseSpec* first_case;  // of the cases this configuration serves
  std::vector<std::string> defines;  // the configuration
  std::vector<std::string> options;  // for the target: the defines, the source's folder, the manifest's
  std::vector<std::string> cases;
  std::string arch, plan_error;
  std::string source;  // the kernel's file for the target's vendor (source_for)
  int64_t max_block_threads = 0, max_dynamic_shared = 0;  // the most any of its cases launches with
  std::string not_for_vendor;  // set when the kernel has no file for the target's vendor: SKIP, nothing compiled
  std::shared_ptr<const CasePlan> plan;  // of first_case: its arguments, checked against the code's parameters
  std::string entry;  // its cases' entry (kernel_entries.h: an entry with $param names one per case)
};

// The configurations of k for one target: the distinct defines its cases produce there.
std::vector<CompileItem> target_items(const KernelSpec& k, const std::string& arch) {
  const CompileTarget target = compile_only_target(arch);
  if (!serves_vendor(k, target.vendor)) {
    if (k.cases.empty()) return {};
    CompileItem skip{&k, &k.cases.front(), {}, {}, {}, arch, "", "", 0, 0, not_for_vendor_message(k, target), nullptr, k.entry};
    for (const CaseSpec& c : k.cases) skip.cases.push_back(c.name);
    return {skip};
  }
  KernelSpec tk = k;  // with the target's file, defines and options
  apply_compile_target(tk, target);
  std::map<std::pair<std::vector<std::string>, std::string>, size_t> configs;  // (defines, entry) -> index in items
  std::vector<CompileItem> items;
  for (const CaseSpec& c : k.cases) {
    std::vector<std::string> defines;
    std::string error;
    int64_t threads = 0, shared = 0;
    std::shared_ptr<const CasePlan> plan;
    std::string entry = k.entry;
    try {
      entry = entry_of(k, c);
      plan = std::make_shared<const CasePlan>(plan_case(tk, c));
      defines = define_options(*plan);
      threads = plan->block_threads();
      shared = plan->shared_bytes;
    } catch (const PlanError& e) {
      error = plan_error_text(k, e);
    }
    const auto [it, fresh] = configs.emplace(std::make_pair(defines, entry), items.size());
    if (fresh) items.push_back(CompileItem{&k, &c, defines, {}, {}, arch, error, tk.source, 0, 0, "", plan, entry});
    CompileItem& item = items[it->second];
    item.cases.push_back(c.name);
    item.max_block_threads = std::max(item.max_block_threads, threads);
    item.max_dynamic_shared = std::max(item.max_dynamic_shared, shared);
  }
  // The target's vendor's file, with its own folder on the include path.
  for (CompileItem& item : items) {
    item.options = kernel_compile_options(item.defines, item.source, tk.include_dirs, tk.compile_options);
  }
  return items;
}

std::vector<CompileItem> compile_items(const std::vector<const KernelSpec*>& kernels, const std::vector<std::string>& archs) {
  std::vector<CompileItem> items;
  for (const KernelSpec* k : kernels)
    for (const std::string& arch : archs)
      for (CompileItem& item : target_items(*k, arch)) items.push_back(std::move(item));
  return items;
}

std::string config_name(const CompileItem& item) {
  std::string s = item.arch;
  for (const std::string& d : item.defines) s += " " + d.substr(2);  // "-DT=bf16" -> "T=bf16"
  if (item.entry != item.kernel->entry) s += " " + item.entry;      // one instantiation of a $param entry
  return s;
}

// What the compiled code needs, in words: "40 registers, 4096 B static shared, 0 B local per
// thread" on NVIDIA; on AMD "498 registers per lane (256 VGPRs + 242 AGPRs), 14 SGPRs, 0 B LDS,
// 0 B scratch per lane, wave64".
std::string needs_text(const KernelResources& k) {
  if (k.wavefront <= 0)
    return fmt::format("{} registers, {} B static shared, {} B local per thread", k.registers, std::max<int64_t>(k.static_shared_bytes, 0),
                       std::max<int64_t>(k.local_bytes, 0));
  const std::string split = k.agprs >= 0 ? fmt::format(" ({} VGPRs + {} AGPRs)", k.registers - k.agprs, k.agprs) : "";
  return fmt::format("{} registers per lane{}, {} SGPRs, {} B LDS, {} B scratch per lane, wave{}", k.registers, split, k.sgprs,
                     std::max<int64_t>(k.static_shared_bytes, 0), std::max<int64_t>(k.local_bytes, 0), k.wavefront);
}

// The first of the target's limits the compiled code and the item's cases are over: its static
// shared memory plus the most dynamic shared memory a case asks for over the target's opt-in
// limit; a block larger than the code allows (AMD's max flat workgroup size); registers per
// thread (on AMD VGPRs and AGPRs together) that leave fewer threads per block than a case launches.
std::optional<LimitExceeded> limit_exceeded(const CompileItem& item, const KernelResources& k, Target t) {
  const int64_t smem = std::max<int64_t>(k.static_shared_bytes, 0);
  if (smem + item.max_dynamic_shared > t.shared_per_block_optin)
    return LimitExceeded{fmt::format("shared memory per block on {}, static {} + dynamic {} (bytes)", t.arch, smem, item.max_dynamic_shared),
                         smem + item.max_dynamic_shared, t.shared_per_block_optin};
  if (k.max_threads_per_block > 0 && k.max_threads_per_block < item.max_block_threads)
    return LimitExceeded{fmt::format("threads per block the code for {} allows (its max flat workgroup size)", t.arch), item.max_block_threads,
                         k.max_threads_per_block};
  if (k.wavefront > 0) t.warp_size = static_cast<int>(k.wavefront);
  if (const int64_t most = max_threads_for_registers(t, k.registers); most < item.max_block_threads) {
    const std::string which = k.agprs > 0 ? fmt::format(" ({} VGPRs + {} AGPRs)", k.registers - k.agprs, k.agprs) : "";
    return LimitExceeded{fmt::format("threads per block on {} with {} registers per thread{}", t.arch, k.registers, which), item.max_block_threads, most};
  }
  return std::nullopt;
}

// What the compiled code needs against what the target has (limit_exceeded): HW_LIMIT, and the
// row still says that the source compiled and what it needs.
void judge_resources(const CompileItem& item, const EntryResources* res, CaseResult& r) {
  if (!res || !res->figures) {
    r.notes.push_back("resources not read: " + (res ? res->error : std::string("no figures")));
    return;
  }
  const KernelResources& k = *res->figures;
  r.resources = k;
  r.message += ": " + needs_text(k);
  // The manifest's arguments against the parameters the code object declares (AMD's metadata):
  // the check a launch makes on CUDA, made here where no AMD GPU is.
  if (item.plan && !k.param_bytes.empty()) {
    std::vector<KernelParam> params;
    for (int64_t b : k.param_bytes) params.push_back(KernelParam{ParamKind::unknown, b < 0 ? 0 : static_cast<size_t>(b), ""});
    if (const std::string why = argument_mismatch(*item.plan, params); !why.empty()) {
      r.status = Status::ERROR;
      r.message = fmt::format("the manifest's arguments do not fit {}'s parameters in its {} code object: {}", item.kernel->entry, item.arch, why);
      return;
    }
  }
  if (k.spilled > 0) r.notes.push_back(fmt::format("spills: {} (registers or bytes, as the compiler counts them) go to local memory", k.spilled));
  const Target* t = find_target(item.arch);
  if (!t || !(r.limit = limit_exceeded(item, k, *t))) return;
  r.status = Status::SKIP;
  r.reason = reason_name(Reason::HW_LIMIT);
  r.notes.push_back(r.message);
  r.message = fmt::format("{}: requested {}, {} limit {}, over by {}", r.limit->what, r.limit->requested, item.arch, r.limit->limit,
                          r.limit->requested - r.limit->limit);
}

// The compiles of one run by what they compile: the kernels of one file in one configuration
// share one compile per target, since the file is compiled with all of its entries anyway.
struct CompileMemo {
  std::mutex mutex;
  std::map<std::string, CompileAnswer> answers;  // key -> the compile worker's answer
  std::map<std::string, std::string> compilers;  // arch -> the name its compile worker gave its compiler
};

// A compile worker's hello (worker_protocol.h).
WorkerHello read_hello(const std::string& line) {
  try {
    return json::parse(line).get<WorkerHello>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("bad hello from the compile worker: ") + e.what());
  }
}

// A compile worker for one target, started on first use and again after it dies.
class CompilerProcess {
 public:
  CompilerProcess(const CompileOnlyOptions& opt, std::string arch, CompileMemo& memo) : opt_(opt), arch_(std::move(arch)), memo_(memo) {}
  ~CompilerProcess() { end(); }
  CompilerProcess(const CompilerProcess&) = delete;
  CompilerProcess& operator=(const CompilerProcess&) = delete;

  // Fills r with the verdict of compiling item.
  void compile(const CompileItem& item, CaseResult& r) {
    const KernelSpec& k = *item.kernel;
    // A file of one vendor holds only the entries its manifest kernels name for it.
    const bool own_file = k.vendor_sources.empty() && !k.file_entries.empty();
    const std::vector<std::string> entries = own_file ? k.file_entries : std::vector<std::string>{item.entry};
    std::string key = arch_ + "\n" + item.source + "\n";
    for (const std::string& o : item.options) key += o + "\n";
    for (const std::string& e : entries) key += "entry " + e + "\n";
    std::optional<CompileAnswer> res;
    {
      std::lock_guard<std::mutex> lock(memo_.mutex);
      if (const auto it = memo_.answers.find(key); it != memo_.answers.end()) res = it->second;
    }
    if (!res) {
      if (!(res = ask(item, entries, r))) return;
      std::lock_guard<std::mutex> lock(memo_.mutex);
      memo_.answers[key] = *res;
    } else {
      r.notes.push_back("compiled once for every kernel of its file in this configuration");
    }
    judge(item, *res, r);
    // After the verdict's own notes, which say what the code needs.
    r.timings.compile_cached = res->cached;
    if (res->cached) r.notes.push_back("read from the compile cache, compiled earlier (--no-cache compiles afresh)");
  }

 private:
  // Sends one compile to the worker and reads its answer; none (r filled) when the compiler
  // crashed or timed out.
  std::optional<CompileAnswer> ask(const CompileItem& item, const std::vector<std::string>& entries, CaseResult& r) {
    if (!proc_ && !start(r)) return std::nullopt;
    const CompileJob job{std::to_string(next_id_++), item.source, item.options, entries, std::nullopt};
    proc_->write_line(json(job).dump());
    // A manifest's per-kernel timeout gives a kernel whose compile is known to be long more time.
    const double limit_s = std::max(opt_.timeout_s, item.kernel->timeout.value_or(0.0));
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(limit_s * 1000));
    std::string line;
    const auto rd = proc_->read_line_unless(line, deadline, [] { return interrupt_signal() != 0; });
    if (interrupt_signal()) {  // the run stops: this compile is not judged, and its worker goes
      end();
      r.status = Status::NOT_RUN;
      r.message = interrupted_message("not finished");
      return std::nullopt;
    }
    if (rd != Subprocess::Read::line) {
      if (rd == Subprocess::Read::timeout) proc_->kill();
      const ExitStatus st = proc_->wait();
      r.status = Status::COMPILE_ERROR;
      r.message = rd == Subprocess::Read::timeout ? fmt::format("the compiler did not finish within {} s (--compile-timeout, or the kernel's \"timeout\"); it was killed", limit_s)
                                                  : "the compiler crashed (" + st.describe() + ")";
      const std::string tail = proc_->output_tail(2000);
      if (!tail.empty()) r.message += "; its output: " + tail;
      end();
      return std::nullopt;
    }
    CompileAnswer res;
    try {
      res = json::parse(line).get<CompileAnswer>();
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("the compile worker's answer cannot be read: ") + e.what());
    }
    if (res.id != job.id) throw std::runtime_error("the compile worker answered another request");
    r.timings.compile_ms = res.ms;
    return res;
  }

  // The verdict of item's entry from the answer for its file.
  void judge(const CompileItem& item, const CompileAnswer& res, CaseResult& r) {
    if (const auto e = res.entry_errors.find(item.entry); res.ok && e != res.entry_errors.end()) {
      r.status = Status::COMPILE_ERROR;  // the file compiled; this entry names none of its kernels
      r.message = e->second;
    } else if (res.ok) {
      r.status = Status::PASS;
      r.message = fmt::format("compiled with {} ({} bytes)", compiler_, res.bytes);
      if (!res.log.empty()) r.notes.push_back("compiler log: " + res.log);
      const auto figures = res.resources_by_entry.find(item.entry);
      judge_resources(item, figures == res.resources_by_entry.end() ? nullptr : &figures->second, r);
    } else {
      r.status = Status::COMPILE_ERROR;
      // Every entry of a file that does not compile gets the same log and its own summary:
      // the answer may be one another kernel of the file asked for (CompileMemo).
      const auto own = res.summaries.find(item.entry);
      r.message = own == res.summaries.end() || own->second.empty() ? res.log : own->second;
      r.compile_log = bounded_text(res.log, kMaxCaseCompileLog, "the compiler's log");
    }
  }

  // The worker; for hipRTC from a root, under that root's loader and with its libraries first, so
  // that nothing else hkcheck starts sees them.
  bool start(CaseResult& r) {
    const BackendRow& row = *backend_for_arch(arch_);  // --arch was checked against the table
    const bool hiprtc = row.id == BackendId::hip;
    const std::string backend = row.name;
    try {
      std::vector<std::string> argv = hiprtc ? hiprtc_loader_prefix(opt_.hiprtc_root) : std::vector<std::string>{};
      const std::string under = argv.empty() ? "" : " under " + argv.front();
      argv.insert(argv.end(), {opt_.exe, "--compile-worker", "--backend", backend, "--arch", arch_, "--protocol-fd", std::to_string(kWorkerProtocolFd), "--host-profile",
                               opt_.host.profile});
      if (hiprtc) argv.insert(argv.end(), {"--hiprtc-root", opt_.hiprtc_root});
      if (opt_.cache_dir.empty()) argv.push_back("--no-cache");
      else argv.insert(argv.end(), {"--cache-dir", opt_.cache_dir});
      if (!opt_.project_root.empty()) argv.insert(argv.end(), {"--project-root", opt_.project_root});
      const std::vector<std::string> env = {opt_.cache_dir.empty() ? "AMD_COMGR_CACHE=0" : "AMD_COMGR_CACHE_DIR=" + opt_.cache_dir + "/comgr"};
      proc_ = std::make_unique<Subprocess>(argv, kWorkerProtocolFd, hiprtc ? env : std::vector<std::string>{});
      add_running_worker(proc_->pid());  // a second signal ends its process group at once
      std::string line;
      const auto rd = proc_->read_line_unless(line, Clock::now() + kWorkerHello, [] { return interrupt_signal() != 0; });
      if (interrupt_signal()) {
        end();
        r.status = Status::NOT_RUN;
        r.message = interrupted_message("not started");
        return false;
      }
      if (rd != Subprocess::Read::line) {
        if (rd == Subprocess::Read::timeout) proc_->kill();  // silent past the deadline: never waited on alive
        const std::string why = proc_->wait().describe(), tail = proc_->output_tail(1000);
        throw std::runtime_error("the compile worker did not start" + under + " (" + why + ")" + (tail.empty() ? "" : ": " + tail));
      }
      const WorkerHello hello = read_hello(line);
      if (const std::string why = hello_mismatch(hello, opt_.exe); !why.empty()) throw std::runtime_error(why);
      if (!hello.ok) throw std::runtime_error(hello.error);
      compiler_ = hello.compiler.empty() ? backend : hello.compiler;
      std::lock_guard<std::mutex> lock(memo_.mutex);
      memo_.compilers[arch_] = compiler_;
      return true;
    } catch (const std::exception& e) {
      r.status = Status::ERROR;
      r.message = fmt::format("no {} compiler for {}: {}", backend, arch_, e.what());
      end();
      return false;
    }
  }

  // The worker ended (its destructor kills and reaps it) and no longer a second signal's to kill.
  void end() {
    if (proc_) remove_running_worker(proc_->pid());
    proc_.reset();
  }

  const CompileOnlyOptions& opt_;
  std::string arch_, compiler_;
  std::unique_ptr<Subprocess> proc_;
  int next_id_ = 0;
  CompileMemo& memo_;
};

CaseResult blank_compile_result(const CompileItem& item) {
  CaseResult r;
  r.kernel = item.kernel->name;
  r.case_name = config_name(item);
  r.manifest = item.kernel->manifest;
  r.params = {{"arch", item.arch}, {"cases", static_cast<double>(item.cases.size())}};
  r.status = Status::ERROR;
  return r;
}

}  // namespace

std::vector<CaseResult> run_compile_only(const std::vector<const KernelSpec*>& kernels, const CompileOnlyOptions& given,
                                         const std::function<void(const CaseResult&)>& on_result,
                                         std::map<std::string, std::string>* compilers) {
  CompileOnlyOptions opt = given;
  opt.hiprtc_root = choose_hiprtc_root(given.hiprtc_root);
  const std::vector<CompileItem> items = compile_items(kernels, opt.archs);
  std::vector<CaseResult> results(items.size());
  std::atomic<size_t> next{0};
  std::mutex sink;
  CompileMemo memo;
  auto pool_thread = [&] {
    std::map<std::string, std::unique_ptr<CompilerProcess>> compilers;  // by arch
    for (size_t i; (i = next++) < items.size();) {
      const CompileItem& item = items[i];
      CaseResult r = blank_compile_result(item);
      if (interrupt_signal()) {
        r.status = Status::NOT_RUN;
        r.message = interrupted_message("not started");
      } else if (!item.plan_error.empty()) {
        r.message = item.plan_error;
      } else if (!item.not_for_vendor.empty()) {
        r.status = Status::SKIP;
        r.reason = reason_name(Reason::NOT_FOR_VENDOR);
        r.message = item.not_for_vendor;
      } else {
        auto& c = compilers[item.arch];
        if (!c) c = std::make_unique<CompilerProcess>(opt, item.arch, memo);
        try {
          c->compile(item, r);
        } catch (const std::exception& e) {
          r.status = Status::ERROR;
          r.message = std::string("harness error: ") + e.what();
          c.reset();
        }
        r.notes.push_back(fmt::format("serves {} case(s), e.g. '{}'", item.cases.size(), item.cases.front()));
      }
      // Only a compile failure can be expected of a compile; other expectations need a run. A
      // kernel expected not to compile that compiles may still fail to load (a missing entry),
      // which only a run shows: that is noted, not an XPASS.
      if (auto e = case_expectation(*item.kernel, *item.first_case, item.arch); e && (e->status == "COMPILE_ERROR" || e->status == reason_name(Reason::HW_LIMIT))) {
        if (r.status == Status::PASS) r.notes.push_back("expected " + e->status + " (" + e->why + "): it compiles and fits; only a run shows more");
        else r = apply_expectation(r, e);
      }
      std::lock_guard<std::mutex> lock(sink);
      on_result(r);
      results[i] = std::move(r);
    }
  };
  on_threads(std::max(opt.jobs, 1), [&](int) { pool_thread(); });
  if (compilers) *compilers = memo.compilers;
  return results;
}

int compile_only_command(const std::vector<const KernelSpec*>& kernels, const CompileOnlyOptions& opt, RunInfo run,
                         const ReportSettings& report) {
  const auto t0 = Clock::now();
  std::string archs;
  for (const std::string& a : opt.archs) archs += (archs.empty() ? "" : ",") + a;
  const std::string out_dir = report.out_dir.empty() ? kCompileOnlyFolder : report.out_dir;
  Reporters reporters(report, out_dir, ConsoleStyle{"hkcheck", "compile only, " + archs + ": ", true, report.verbosity, report.durations});
  size_t done = 0;
  std::map<std::string, std::string> compilers;
  adopt_orphans();  // a compile worker's orphan (its compiler's child) becomes ours to end
  const std::vector<CaseResult> results =
      run_compile_only(kernels, opt, [&](const CaseResult& r) { reporters.case_finished(r, ++done, 0); }, &compilers);
  end_orphans_when_no_worker();
  run.spec.backend = "compile-only";
  // The compilers by their real names ("gfx942: hipRTC 7.2.53211 (comgr 3.0, LLVM 22.1.8)"), where
  // a device's runtime version would be.
  std::string names;
  for (const auto& [arch, name] : compilers) names += (names.empty() ? "" : "; ") + arch + ": " + name;
  run.device = DeviceInfo{};
  run.device->backend = "compile-only", run.device->name = "compile only: " + archs, run.device->arch = archs;
  run.device->runtime_version = names;
  run.device->note = "compiled with " + (names.empty() ? std::string("no compiler") : names);
  run.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const int sig = interrupt_signal();
  if (sig) run.interrupted = signal_label(sig);
  std::string err;
  if (!reporters.run_finished(run, results, &err)) {
    fmt::print(stderr, "hkcheck: cannot write the reports: {}\n", err);
    return kExitUsage;
  }
  if (sig) {
    fmt::print(stderr, "hkcheck: interrupted by {}; {} configuration(s) not compiled\n", run.interrupted, count_results(results)[Status::NOT_RUN]);
    return 128 + sig;
  }
  return verdicts_exit_code(count_results(results));
}

}  // namespace hk
