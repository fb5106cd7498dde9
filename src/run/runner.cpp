#include "run/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fmt/format.h>
#include <mutex>
#include <sstream>
#include <thread>

#include "model/case_plan.h"
#include "select/case_schedule.h"
#include "run/compile_ahead.h"
#include "check/apply_expectation.h"
#include "model/expectation.h"
#include "process/interrupt.h"
#include "process/orphans.h"
#include "worker/worker.h"
#include "contracts/result.h"
#include "contracts/run_info.h"
#include "check/verdict_note.h"
#include "util/threads.h"
#include "model/status.h"

namespace hk {
namespace {


// Runs of consecutive cases of one kernel: each runs in order in one worker, so a kernel's cases
// see each other's device state the same way while their costs stay alike (and its program is
// loaded once per run of cases). Their bounds keep a kernel of many or big cases from holding up
// the end of the run while other workers sit idle; the costliest start first.
std::vector<std::vector<size_t>> kernel_units(const std::vector<CaseTask>& tasks, size_t workers) {
  std::vector<const void*> kernel_of;
  std::vector<double> cost;
  for (const CaseTask& t : tasks) {
    kernel_of.push_back(t.kernel);
    cost.push_back(t.expected_ms);
  }
  return schedule_units(kernel_of, cost, workers, 16, kMinUnitMs);
}

// Hands out units in schedule order, each once its cases' reference libraries are ready (they
// are built beside the run): the first ready unit not yet taken, else it waits for a library.
class UnitQueue {
 public:
  UnitQueue(size_t units, std::function<bool(size_t)> ready) : taken_(units, false), left_(units), ready_(std::move(ready)) {}
  // The next unit to run, or the unit count when every unit was taken.
  size_t take() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (left_ > 0) {
      for (size_t u = first_; u < taken_.size(); ++u) {
        if (taken_[u] || !ready_(u)) continue;
        taken_[u] = true;
        --left_;
        while (first_ < taken_.size() && taken_[first_]) ++first_;
        return u;
      }
      // Woken by a library made ready; the timeout covers a wake that came between the scan and the wait.
      wake_.wait_for(lock, std::chrono::milliseconds(100));
    }
    return taken_.size();
  }
  // Takes no lock: a library made ready calls it while holding the libraries' own.
  void wake() { wake_.notify_all(); }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<bool> taken_;
  size_t left_, first_ = 0;
  std::function<bool(size_t)> ready_;
};

// Verdicts worth a second opinion from a fresh worker. A HW_LIMIT or TIER skip is decided from
// the plan and the device's limits alone; an interrupted case has no verdict.
bool worth_rerunning_alone(const CaseResult& r) {
  if (r.status == Status::PASS || r.status == Status::NOT_RUN) return false;
  return r.status != Status::SKIP || has_reason(r.reason, Reason::TOO_LARGE);
}

}  // namespace

Runner::Runner(RunOptions opt) : opt_(std::move(opt)) {
  adopt_orphans();  // what a worker's kernel leaves behind becomes ours to end
  if (opt_.devices.empty()) opt_.devices = {opt_.device};
  opt_.device = opt_.devices.front();
  opt_.jobs = std::max(opt_.jobs, 1);
}

namespace {
// A worker sees only its own GPU: the driver then sets up one device instead of every one of
// the host (with 2 GPUs, a worker took 1.6x longer to start seeing both), and it opens
// device 0. Indices count within the caller's own CUDA_/HIP_VISIBLE_DEVICES when set.
std::vector<std::string> only_device_env(int device, int* device_in_child) {
  std::vector<std::string> env;
  *device_in_child = device;
  bool all_mapped = true;
  for (const BackendRow& row : backend_table()) {
    if (!*row.visible_devices) continue;
    const char* var = row.visible_devices;
    std::vector<std::string> visible;
    if (const char* v = std::getenv(var); v && *v) {
      std::string item;
      for (std::istringstream in(v); std::getline(in, item, ',');) visible.push_back(item);
    }
    if (visible.empty()) env.push_back(fmt::format("{}={}", var, device));
    else if (device >= 0 && device < static_cast<int>(visible.size())) env.push_back(std::string(var) + "=" + visible[static_cast<size_t>(device)]);
    else all_mapped = false;
  }
  if (!all_mapped) return {};  // an index the caller's list lacks: let the worker say so
  *device_in_child = 0;
  return env;
}
}  // namespace

WorkerLaunch Runner::launch(int device) const {
  std::vector<std::string> argv = opt_.wrapper;  // argv[0] is then the wrapper's path
  int child_device = device;
  std::vector<std::string> env = on_cpu(opt_.backend) ? std::vector<std::string>{} : only_device_env(device, &child_device);
  if (!opt_.wrapper.empty()) env.push_back(std::string(kUnderToolVariable) + "=1");
  argv.insert(argv.end(), {opt_.exe, "--worker", "--backend", opt_.backend, "--device", std::to_string(child_device),
                           "--protocol-fd", std::to_string(kWorkerProtocolFd)});
  if (!opt_.cache_dir.empty()) {
    argv.push_back("--cache-dir");
    argv.push_back(opt_.cache_dir);
  } else {
    argv.push_back("--no-cache");
  }
  if (!opt_.project_root.empty()) argv.insert(argv.end(), {"--project-root", opt_.project_root});
  argv.insert(argv.end(), opt_.worker_args.begin(), opt_.worker_args.end());
  return WorkerLaunch{argv, opt_.start_timeout_s, env, opt_.memory_limit};
}

void Runner::start_workers(size_t at_most) {
  if (opt_.isolation != Isolation::worker || prestarted_) return;
  prestarted_ = std::make_unique<PrestartedWorkers>();
  // Contexts on one GPU are made one after another: a worker nobody needs delays the others.
  size_t started = 0;
  for (int j = 0; j < opt_.jobs; ++j)
    for (int device : opt_.devices)
      if (started++ < std::max<size_t>(at_most, 1)) prestarted_->start(device, launch(device));
}

std::optional<DeviceInfo> Runner::probe(std::string* why, int device) {
  if (device < 0) device = opt_.device;
  std::optional<DeviceInfo> dev;
  if (prestarted_) dev = prestarted_->hello(device, why);
  if (!dev && (!prestarted_ || why->empty())) {  // none started for it
    WorkerSession w(launch(device));
    dev = w.start(why);
    w.close();
  }
  if (dev && opt_.backend == "auto") opt_.backend = dev->backend;
  if (dev && arch_.empty()) arch_ = dev->arch;
  if (dev && !device_) device_ = dev;
  return dev;
}

CaseResult Runner::run(const KernelSpec& k, const CaseSpec& c, const std::string& repro_dir) {
  WorkerSession fresh(launch(opt_.device));
  return run_task(fresh, opt_.device, CaseTask{&k, &c, repro_dir}, Isolation::case_alone);
}

CaseResult Runner::run_task(WorkerSession& session, int device, const CaseTask& t, Isolation isolation) {
  const KernelSpec& k = *t.kernel;
  const CaseSpec& c = *t.c;
  CaseJob job;
  try {
    job = make_case_job(k, c, opt_.seed, opt_.repeat, t.repro_dir);
    job.time_launches = opt_.time_launches;
    job.reference_cache = opt_.reference_cache;
    const ReferenceLibrary* ref = opt_.references ? opt_.references->get(k.reference) : nullptr;
    if (!ref) job.reference_error = "reference '" + k.reference + "' was not gathered for this run";
    else if (!ref->ok) job.reference_error = "reference '" + k.reference + "' does not compile: " + ref->log;
    else job.reference_library = ref->path;
  } catch (const PlanError& e) {
    return apply_expectation(plan_error_result(k, c, e), case_expectation(k, c, arch_, on_host()));
  }
  const CaseTimeouts timeout{k.timeout.value_or(opt_.timeout_s), opt_.setup_timeout_s};
  if (isolation == Isolation::case_alone) session.close();
  // The latest cases this worker ran, for a LEAK verdict to name.
  const auto& h = session.history();
  const size_t before_count = h.size();
  const std::vector<std::string> before(h.end() - static_cast<ptrdiff_t>(std::min(h.size(), kMaxLeakHistory)), h.end());
  CaseResult r = session.run(job, timeout);
  r.placement = {device, static_cast<int>(before_count)};
  if (isolation == Isolation::case_alone) session.close();
  else if (before_count > 0 && worth_rerunning_alone(r) && !interrupt_signal())
    r = check_alone(std::move(r), before, before_count, job, timeout, device);
  if (const ReferenceLibrary* ref = opt_.references ? opt_.references->get(k.reference) : nullptr)  // an override, a damaged cache entry
    r.notes.insert(r.notes.end(), ref->notes.begin(), ref->notes.end());
  return apply_expectation(r, case_expectation(k, c, arch_, on_host()));
}

CaseResult Runner::check_alone(CaseResult in_worker, const std::vector<std::string>& before, size_t before_count,
                               const CaseJob& job, const CaseTimeouts& timeout, int device) {
  CaseJob alone_job = job;
  alone_job.repro_dir.clear();  // the repro keeps the output of the verdict being reported
  alone_job.time_launches = 0;  // the rerun is for the verdict only
  WorkerSession fresh(launch(device));
  const CaseResult alone = fresh.run(alone_job, timeout);
  fresh.close();
  if (alone.status == Status::NOT_RUN) {
    in_worker.notes.push_back("not rerun alone in a fresh worker: the run was interrupted");
    return in_worker;
  }
  if (alone.status == in_worker.status) {
    in_worker.notes.push_back(fmt::format("the same verdict alone in a fresh worker (after {} case(s) in a reused one)", before_count));
    return in_worker;
  }
  LeakFinding leak{in_worker.status, in_worker.message, alone.status, alone.message, before, static_cast<int64_t>(before_count)};
  in_worker.status = Status::LEAK;
  in_worker.message = leak_note(leak);
  in_worker.leak = std::move(leak);
  in_worker.timings.wall_ms += alone.timings.wall_ms;
  in_worker.cpu.case_ms += alone.cpu.case_ms;
  return in_worker;
}

// Compiles of the run's cases, made by processes of their own in the order the units start, on
// the cores the workers leave (compile_ahead.h). NVRTC only: the host compiler and the HIP
// runtime's hipRTC are not shown to compile outside a worker as inside one.
std::unique_ptr<CompileAhead> Runner::compile_ahead(const std::vector<CaseTask>& tasks, const std::vector<std::vector<size_t>>& units) const {
  const BackendRow* row = device_ ? find_backend(device_->backend) : nullptr;
  if (opt_.compile_ahead <= 0 || opt_.cache_dir.empty() || !row || !row->compiles_ahead || opt_.isolation != Isolation::worker)
    return nullptr;
  std::vector<std::pair<const KernelSpec*, const CaseSpec*>> cases;
  for (const auto& unit : units)
    for (size_t i : unit) cases.emplace_back(tasks[i].kernel, tasks[i].c);
  return std::make_unique<CompileAhead>(
      CompileAheadOptions{opt_.exe, opt_.cache_dir, opt_.project_root, opt_.compile_ahead, opt_.setup_timeout_s},
      [cases = std::move(cases), device = *device_, dir = opt_.cache_dir, root = opt_.project_root, seed = opt_.seed, repeat = opt_.repeat] {
        const CompileCache kept(dir, root);  // a warm run starts no process
        return ahead_compile_jobs(cases, device, seed, repeat, &kept);
      });
}

void Runner::run_all(const std::vector<CaseTask>& tasks, const ResultSink& on_result) {
  const auto units = kernel_units(tasks, opt_.devices.size() * static_cast<size_t>(opt_.jobs));
  std::unique_ptr<CompileAhead> ahead = compile_ahead(tasks, units);
  UnitQueue queue(units.size(), [&](size_t u) {
    return !opt_.references || interrupt_signal() ||
           std::all_of(units[u].begin(), units[u].end(), [&](size_t i) { return opt_.references->ready(tasks[i].kernel->reference); });
  });
  const ReferenceLibraries::Listening listening(opt_.references.get(), [&queue] { queue.wake(); });
  std::mutex sink;
  std::atomic<bool> stop_after_failure{false};
  std::atomic<int> not_passed{0};
  auto deliver = [&](size_t i, CaseResult r) {
    if (!status_ok(r.status) && r.status != Status::NOT_RUN && ++not_passed >= opt_.max_fail && opt_.max_fail > 0) stop_after_failure = true;
    std::lock_guard<std::mutex> lock(sink);
    on_result(i, std::move(r));
  };
  auto pool_thread = [&](int device) {
    std::unique_ptr<WorkerSession> started = prestarted_ ? prestarted_->take(device) : nullptr;
    WorkerSession& session = started ? *started : *(started = std::make_unique<WorkerSession>(launch(device)));
    for (size_t u; (u = queue.take()) < units.size();) {
      for (size_t i : units[u]) {
        const std::string why_not = interrupt_signal() ? "the run was interrupted by " + signal_label(interrupt_signal())
                                    : stop_after_failure ? fmt::format("{} stopped the run after {} case(s) that did not pass",
                                                                       opt_.max_fail == 1 ? "-x" : "--maxfail", opt_.max_fail)
                                                         : "";
        if (!why_not.empty()) {
          CaseResult r = blank_result(*tasks[i].kernel, *tasks[i].c, Status::NOT_RUN);
          r.message = "not started: " + why_not;
          deliver(i, std::move(r));
          continue;
        }
        deliver(i, run_task(session, device, tasks[i], opt_.isolation));
      }
    }
  };
  const size_t wanted = opt_.devices.size() * static_cast<size_t>(opt_.jobs);
  on_threads(static_cast<int>(std::min(wanted, units.size())), [&](int t) { pool_thread(opt_.devices[static_cast<size_t>(t) % opt_.devices.size()]); });
  if (ahead) {
    ahead->stop();  // its processes are children too: gone before the sweep below
    compiled_ahead_ = ahead->tally();
    ahead.reset();
  }
  // A kernel may have started a process that escaped its worker (fork + setsid): it ends with the
  // run, or with the last of the runs going on side by side (their workers are not orphans).
  if (const int left = end_orphans_when_no_worker(); left > 0)
    fmt::print(stderr, "hkcheck: ended {} process(es) that a kernel started and left running\n", left);
}

}  // namespace hk
