#include "worker/case_exec.h"

#include "model/arg_layout.h"

#include <unistd.h>

#include "compile/cache_seal.h"
#include "util/fnv1a.h"
#include "compile/header_fingerprint.h"
#include "refs/reference_cache.h"
#include "refs/reference_guard.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "model/case_plan.h"
#include "contracts/case_job.h"
#include "contracts/code_object_resources.h"
#include "compile/compile_attribution.h"
#include "worker/device_inputs.h"
#include "worker/empty_case.h"
#include "worker/kernel_timing.h"
#include "compile/kernel_file_compile.h"
#include "check/output_check.h"
#include "util/file_util.h"
#include "util/first_touch.h"
#include "util/fnv1a.h"
#include "compile/header_fingerprint.h"
#include "refs/generator.h"
#include "check/guard.h"
#include "worker/tensor_transfer.h"
#include "model/kernel_params.h"
#include "process/memory_limit.h"
#include "util/parallel_for.h"
#include "util/phase_clock.h"
#include "check/race_verdict.h"
#include "check/repeat_compare.h"
#include "contracts/case_phase.h"
#include "worker/outside_reads.h"
#include "reference.h"
#include "util/text_bound.h"
#include "refs/reference_inputs.h"
#include "refs/runtime_references.h"
#include "worker/repro_output.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Device buffers of one case, freed on every path out.
class Buffers {
 public:
  explicit Buffers(Backend& be) : be_(be) {}
  ~Buffers() {
    if (!dead_)
      for (uint64_t p : ptrs_) be_.free(p);
  }
  uint64_t alloc(size_t bytes) {
    ptrs_.push_back(be_.alloc(bytes));
    return ptrs_.back();
  }
  void mark_dead() { dead_ = true; }  // the context is gone: freeing would only fail again

 private:
  Backend& be_;
  std::vector<uint64_t> ptrs_;
  bool dead_ = false;
};

CaseResult skip_limit(CaseResult r, const std::string& what, int64_t requested, int64_t limit) {
  r.status = Status::SKIP;
  r.reason = "HW_LIMIT";
  r.limit = LimitExceeded{what, requested, limit};
  r.message = fmt::format("{}: requested {}, device limit {}, over by {}", what, requested, limit, requested - limit);
  return r;
}

// Limits that can be judged before compiling: block shape, grid shape, dynamic shared memory.
// The worker's own copies of a case's tensors: each in double (inputs as generated, outputs as
// the reference writes them) and packed once more in its dtype for the transfer. On the host
// backend the "device" tensors live in the same memory. A case they cannot fit is TOO_LARGE, not
// a worker killed for memory halfway through.
bool over_worker_memory(const CasePlan& plan, const DeviceInfo& dev, int64_t device_bytes, CaseResult& r) {
  double needed = on_cpu(dev.backend) ? static_cast<double>(device_bytes) : 0.0;
  for (const TensorPlan& t : plan.tensors) needed += static_cast<double>(t.numel) * sizeof(double) + static_cast<double>(t.bytes());
  const double memory = static_cast<double>(dev.host_memory > 0 ? static_cast<uint64_t>(dev.host_memory) : physical_memory());
  if (memory <= 0 || needed <= memory) return false;
  const auto as_int = [](double v) { return v >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(v); };
  r.status = Status::SKIP;
  r.reason = "TOO_LARGE";
  r.limit = LimitExceeded{"host memory for the worker's copies of the tensors (bytes)", as_int(needed), as_int(memory)};
  r.message = fmt::format("the worker's copies of the tensors (in double and packed{}) need {:.0f} bytes; this machine has {:.0f} "
                          "(over by {:.0f})",
                          on_cpu(dev.backend) ? ", with the host backend's device tensors" : "", needed, memory, needed - memory);
  return true;
}

bool over_device_limits(const CasePlan& p, const DeviceInfo& d, CaseResult& r) {
  if (p.block_threads() > d.max_threads_per_block) {
    r = skip_limit(r, "threads per block", p.block_threads(), d.max_threads_per_block);
    return true;
  }
  static const char* kAxis[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (p.block[i] > d.max_block[i]) {
      r = skip_limit(r, fmt::format("block dimension {}", kAxis[i]), p.block[i], d.max_block[i]);
      return true;
    }
    if (p.grid[i] > d.max_grid[i]) {
      r = skip_limit(r, fmt::format("grid dimension {}", kAxis[i]), p.grid[i], d.max_grid[i]);
      return true;
    }
  }
  if (p.shared_bytes > d.shared_per_block_optin) {
    r = skip_limit(r, "dynamic shared memory per block (bytes)", p.shared_bytes, d.shared_per_block_optin);
    return true;
  }
  return false;
}

// Launches whose output differed from the first, each judged against the reference on its own.
// FLAKY (returns true) unless every launch is within tolerance, or when the tensor is declared
// deterministic; otherwise the variation is only noted: an order free to vary (float atomics)
// is not a bug while every launch is within tolerance.
bool judge_variants(const CasePlan& plan, const std::vector<std::vector<uint8_t>>& got,
                    const std::vector<std::vector<LaunchVariant>>& variants, const ref::Context& ctx, CaseResult& r) {
  bool flaky = false;
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    if (variants[i].empty()) continue;
    if (t.deterministic) {
      r.notes.push_back(fmt::format("{}: declared deterministic, but launches differ", t.name));
      flaky = true;
      continue;
    }
    // Each launch is judged by the output's own rules (an index output by the values it selects).
    auto passes = [&](const std::vector<uint8_t>& bytes) {
      std::vector<std::vector<uint8_t>> alt = got;
      alt[i] = bytes;
      return judge_output(CheckInput{plan, i, alt, ctx}).pass;
    };
    const bool first_pass = passes(got[i]);
    double spread = 0;
    int64_t varied = 0;
    bool same_verdict = true;
    for (const LaunchVariant& v : variants[i]) {
      spread = std::max(spread, largest_difference(t.dtype, got[i], v.bytes));
      varied = std::max(varied, differing_elements(got[i], v.bytes, dtype_size(t.dtype)));
      if (passes(v.bytes) != first_pass) {
        same_verdict = false;
        r.notes.push_back(fmt::format("{}: launch {} is {} tolerance, launch 1 {}", t.name, v.launch, first_pass ? "outside" : "within",
                                      first_pass ? "within" : "outside"));
      }
    }
    // Launches that vary and fail point at a race as the cause: FLAKY says so.
    if (same_verdict && first_pass)
      r.notes.push_back(fmt::format("{}: nondeterministic: up to {} element(s) differ between launches, by up to {:.6g}, each "
                                    "launch within tolerance (declare \"deterministic\": true on the tensor to make this FLAKY)",
                                    t.name, varied, spread));
    flaky |= !same_verdict || !first_pass;
  }
  return flaky;
}

// What the kernel needs, as --compile-only reports it from the code, with the device's own figures
// where it gives them (registers, static shared memory, the largest block it allows). Null on
// the host backend, whose kernels are not GPU code.
nlohmann::json run_resources(const std::string& backend, const CompileOutput& compiled, const std::string& symbol,
                             const KernelAttributes& attrs) {
  const BackendRow* row = find_backend(backend);
  if (!row || row->resources == ResourceFormat::none) return nullptr;
  std::string why;
  KernelResources res = code_resources(row->resources, compiled.binary, symbol, &why).value_or(KernelResources{});
  res.registers = attrs.registers;
  res.static_shared_bytes = attrs.static_shared_bytes;
  res.max_threads_per_block = attrs.max_threads_per_block;
  return res;
}

// The inputs the host decodes: all of them for the reference, or, when its outputs were read
// back, the in tensors a check reads.
std::vector<bool> inputs_the_host_reads(const CasePlan& plan, bool reference_cached) {
  const std::vector<bool> read_by_checks = inputs_read_by_checks(plan);
  std::vector<bool> reads(plan.tensors.size(), false);
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const Role role = plan.tensors[i].role;
    reads[i] = role != Role::out && (!reference_cached || (role == Role::in && read_by_checks[i]));
  }
  return reads;
}

// Where a case's buffers and arguments lie, as its launches use them.
struct Launchable {
  Backend::Kernel fn;
  const std::vector<uint64_t>& ptrs;
  void** argv;
  DeviceInputs* device_inputs;
  std::vector<bool>& on_device;
  std::vector<std::vector<uint8_t>>& initial;
};

// A failing case launched again with other guard contents, to see whether it reads outside its
// tensors (outside_reads.h); not for cases whose tensors take more than this many bytes.
constexpr int64_t kMaxOutsideReadBytes = int64_t{256} << 20;
std::optional<GuardViolation> outside_read_of(Backend& be, const CaseJob& job, Launchable l, const std::vector<BufferGuards>& guards) {
  const CasePlan& plan = job.plan;
  int64_t bytes = 0;
  for (const TensorPlan& t : plan.tensors) bytes += static_cast<int64_t>(t.bytes());
  if (bytes > kMaxOutsideReadBytes) return std::nullopt;
  const GuardedRelaunch relaunch = [&](const std::vector<BufferGuards>& g) -> std::optional<std::vector<std::vector<uint8_t>>> {
    std::vector<std::vector<uint8_t>> out(plan.tensors.size());
    try {
      for (size_t i = 0; i < plan.tensors.size(); ++i) put_tensor(be, job, i, l.ptrs[i], g[i], l.device_inputs, l.on_device, l.initial, false);
      try {
        be.launch(l.fn, plan.grid, plan.block, plan.shared_bytes, l.argv);
      } catch (const RacesFound&) {  // reported by the checked launch already
      } catch (const LaunchFinding&) {
      }
      be.synchronize();
      for (size_t i = 0; i < plan.tensors.size(); ++i)
        if (plan.tensors[i].role != Role::in) out[i] = take_tensor(be, plan.tensors[i], l.ptrs[i], g[i]).bytes;
    } catch (const BackendError& e) {
      if (e.sticky) throw;
      return std::nullopt;
    }
    return out;
  };
  return find_outside_read(plan, guards, relaunch);
}

}  // namespace

CaseResult execute_case(Backend& be, const KernelSpec& k, const CaseSpec& c, const ExecOptions& opt,
                        CompileCache& cache, bool* sticky_fault) {
  CaseJob job;
  try {
    job = make_case_job(k, c, opt.seed, opt.repeat, opt.repro_dir);
  } catch (const PlanError& e) {
    *sticky_fault = false;
    return plan_error_result(k, c, e);
  }
  job.repeat = opt.repeat;  // the caller's count, as given
  return execute_case(be, job, cache, sticky_fault);
}

CaseResult execute_case(Backend& be, const CaseJob& job, CompileCache& cache, bool* sticky_fault, ReferenceCache* references,
                        DeviceInputs* device_inputs) {
  const PhaseClock case_clock;
  *sticky_fault = false;
  CaseResult r = job_result(job);
  auto finish = [&](CaseResult res) {
    if (device_inputs)
      for (std::string& note : device_inputs->take_notes()) res.notes.push_back(std::move(note));
    res.timings.wall_ms = case_clock.wall_ms();
    res.cpu.case_ms = case_clock.cpu_ms();
    return res;
  };
  const CasePlan& plan = job.plan;
  if (!job.reference_error.empty()) {
    r.message = job.reference_error;
    return finish(r);
  }
  const ref::Function* reference = nullptr;
  try {
    reference = load_reference(job.reference_library, job.reference);
  } catch (const std::exception& e) {
    r.message = e.what();
    return finish(r);
  }
  r.launch = {{"grid", plan.grid}, {"block", plan.block}, {"shared_bytes", plan.shared_bytes}};
  const DeviceInfo& dev = be.device();
  if (over_device_limits(plan, dev, r)) return finish(r);

  // Tensors (and their guards) that cannot fit in the device's memory are not attempted.
  int64_t total_bytes = 0;
  for (const TensorPlan& t : plan.tensors) total_bytes += static_cast<int64_t>(allocation_bytes(t.bytes(), t.offset_bytes));
  if (total_bytes > dev.total_memory) {
    r.status = Status::SKIP;
    r.reason = "TOO_LARGE";
    r.limit = LimitExceeded{"device memory for all tensors and their guards (bytes)", total_bytes, dev.total_memory};
    r.message = fmt::format("the tensors need {} bytes with their guards; the device has {} (over by {})", total_bytes,
                            dev.total_memory, total_bytes - dev.total_memory);
    return finish(r);
  }
  if (over_worker_memory(plan, dev, total_bytes, r)) return finish(r);

  // Inputs in their device bytes, exactly what the kernel will see; in double only once read.
  const PhaseClock inputs_clock;
  ref::Context ctx = context_without_inputs(job);
  std::vector<std::vector<uint8_t>> initial;  // every tensor's bytes before a launch; those made on the device only where read
  // Element-wise inputs are made on the GPU where it can (device_inputs.h), the rest here.
  std::vector<bool> on_device = device_inputs ? device_inputs->tensors_made_here(plan) : std::vector<bool>(plan.tensors.size(), false);
  // The key of the reference's outputs in the cache, which its derived inputs' runs share.
  const std::string library_id = references && job.reference_cache ? reference_library_identity(job.reference_library) : "";
  const std::string outputs_key = library_id.empty() ? "" : reference_cache_key(job, library_id);
  try {
    initial = packed_inputs(job, &on_device, DerivedRunCache{references, outputs_key, &r.notes});
  } catch (const InputError& e) {  // a harness-side error, not a crash of the kernel
    r.message = fmt::format("{}: {}", job.manifest, e.what());
    return finish(r);
  }
  r.timings.inputs_ms = inputs_clock.wall_ms();
  r.cpu.inputs_ms = inputs_clock.cpu_ms();

  // Compile (or fetch from the cache) and load.
  if (!job.gpu_only.empty() && on_cpu(be.device().backend)) {
    r.status = Status::SKIP;
    r.reason = "GPU_ONLY";
    r.message = "the manifest marks this kernel GPU-only: " + job.gpu_only;
    return finish(r);
  }
  std::string source;
  try {
    source = read_file(job.source, "kernel source");
  } catch (const std::exception& e) {
    r.status = Status::ERROR;
    r.message = e.what();
    return finish(r);
  }
  enter_case_phase(kPhaseCompile);
  const auto t_compile = Clock::now();
  bool cached = false;
  std::string key;
  const CompileOutput compiled = cache.get(be, case_compile(job, source), &cached, &key);
  for (const std::string& repair : take_cache_repairs()) r.notes.push_back(repair);  // a damaged entry, prelude or header made again
  r.timings.compile_ms = ms_since(t_compile);
  r.timings.compile_cached = cached;
  if (!compiled.ok) {
    r.status = Status::COMPILE_ERROR;
    r.message = compile_error_summary(compiled.log, source, job.source, job.entry, job.file_entries);
    r.compile_log = bounded_text(compiled.log, kMaxCaseCompileLog, "the compiler's log");
    return finish(r);
  }
  if (const auto bad = compiled.entry_errors.find(job.entry); bad != compiled.entry_errors.end()) {
    r.status = Status::COMPILE_ERROR;
    r.message = bad->second;
    return finish(r);
  }
  if (!compiled.log.empty()) r.notes.push_back("compiler log: " + bounded_text(compiled.log, kMaxCaseCompileLog, "the compiler's log"));

  Buffers buffers(be);
  try {
    const auto symbol = compiled.symbols.find(job.entry);
    Backend::Kernel fn = cache.load(be, key, compiled.binary, symbol == compiled.symbols.end() ? job.entry : symbol->second);
    if (const auto params = be.parameters(fn, plan.args.size())) {
      if (const std::string bad = argument_mismatch(plan, *params); !bad.empty()) {
        r.status = Status::ERROR;
        r.message = fmt::format("{}: the manifest's arguments do not fit '{}': {}", job.manifest, job.entry, bad);
        return finish(r);
      }
    }
    const KernelAttributes attrs = be.attributes(fn);
    r.resources = run_resources(be.device().backend, compiled, symbol == compiled.symbols.end() ? job.entry : symbol->second, attrs);
    if (plan.block_threads() > attrs.max_threads_per_block)
      return finish(skip_limit(r, fmt::format("threads per block for this kernel ({} registers per thread)", attrs.registers),
                               plan.block_threads(), attrs.max_threads_per_block));
    if (attrs.static_shared_bytes + plan.shared_bytes > dev.shared_per_block_optin)
      return finish(skip_limit(r, fmt::format("shared memory per block, static {} + dynamic {} (bytes)", attrs.static_shared_bytes, plan.shared_bytes),
                               attrs.static_shared_bytes + plan.shared_bytes, dev.shared_per_block_optin));
    if (attrs.static_shared_bytes + plan.shared_bytes > dev.shared_per_block) {
      be.allow_dynamic_shared(fn, plan.shared_bytes);
      r.notes.push_back(fmt::format("opted in to {} bytes of dynamic shared memory (default limit {})", plan.shared_bytes, dev.shared_per_block));
    }

    // Every buffer sits between two guard regions; inputs are packed once and re-uploaded
    // before every launch, outputs re-poisoned, so each launch starts from the same bytes.
    std::vector<BufferGuards> guards;
    std::vector<uint64_t> ptrs;
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
      const TensorPlan& t = plan.tensors[i];
      uint64_t base = 0;
      const size_t offset = static_cast<size_t>(t.offset_bytes);
      try {
        base = buffers.alloc(allocation_bytes(t.bytes(), offset));
      } catch (const BackendError& e) {
        if (e.sticky) throw;
        r.status = Status::SKIP;
        r.reason = "TOO_LARGE";
        r.message = fmt::format("the device could not allocate {} bytes for tensor '{}': {}", allocation_bytes(t.bytes(), offset), t.name, e.what());
        return finish(r);
      }
      ptrs.push_back(base + data_offset(offset));  // offset_bytes past an aligned address
      const AllocationSlack slack = be.slack(base);
      guards.push_back(buffer_guards(i, base, t.bytes(), slack.before, slack.after, offset, t.dtype));
    }
    // Each argument's bytes as the kernel's type lays them out (arg_layout.h), aligned for it.
    std::vector<AlignedArgument> arguments;
    for (const ArgPlan& a : plan.args) arguments.emplace_back(argument_bytes(a, ptrs));
    std::vector<void*> argv;
    for (AlignedArgument& a : arguments) argv.push_back(a.data());
    argv.push_back(nullptr);  // lets the host backend check the count; GPU launches read only what the kernel takes

    // Outputs computed before for the same library, reference, plan and inputs are read back
    // before the launches: what the host must read of the inputs follows from it.
    const PhaseClock read_clock;
    std::map<std::string, const double*> armed;  // where each output's guard was laid
    for (const TensorPlan& t : plan.tensors)
      if (t.role == Role::out) armed[t.name] = ctx.tensors[t.name].data.data();
    r.timings.reference_cached = !outputs_key.empty() && fill_reference_outputs(*references, outputs_key, plan, ctx, &r.notes);
    const double reference_read_ms = read_clock.wall_ms(), reference_read_cpu_ms = read_clock.cpu_ms();
    const std::vector<bool> host_reads = inputs_the_host_reads(plan, r.timings.reference_cached);

    const int launches = std::max(job.repeat, 1);
    r.launches = launches;
    std::vector<std::vector<uint8_t>> got(plan.tensors.size());
    std::vector<std::vector<LaunchVariant>> variants(plan.tensors.size());
    std::optional<RaceReport> race;  // --races: the launch ran to its end, then said what raced
    std::optional<std::string> finding;  // the launch ran to its end, then said what it left undefined
    enter_case_phase(kPhaseKernel);
    for (int launch = 1; launch <= launches; ++launch) {
      const PhaseClock put_clock;
      for (size_t i = 0; i < plan.tensors.size(); ++i)
        put_tensor(be, job, i, ptrs[i], guards[i], device_inputs, on_device, initial, launch == 1 && host_reads[i]);
      if (launch == 1) r.timings.inputs_ms += put_clock.wall_ms(), r.cpu.inputs_ms += put_clock.cpu_ms();
      be.poison_shared();  // a slot the kernel reads unwritten holds NaN, never a fresh context's zero
      const auto t_kernel = Clock::now();
      try {
        be.launch(fn, plan.grid, plan.block, plan.shared_bytes, argv.data());
      } catch (const RacesFound& e) {
        if (!race) race = e.report;
      } catch (const LaunchFinding& e) {
        if (!finding) finding = e.what();
      }
      be.synchronize();
      if (launch == 1) r.timings.kernel_ms = ms_since(t_kernel);

      for (size_t i = 0; i < plan.tensors.size(); ++i) {
        const TensorPlan& t = plan.tensors[i];
        TensorAfterLaunch left = take_tensor(be, t, ptrs[i], guards[i]);
        // A guard touched in several launches is reported once, as the first launch saw it.
        for (const auto& v : {check_guard(t.name, "before", left.before, guards[i].before), check_guard(t.name, "after", left.after, guards[i].after)}) {
          if (v && std::none_of(r.guards.begin(), r.guards.end(), [&](const GuardViolation& g) { return g.tensor == v->tensor && g.side == v->side; }))
            r.guards.push_back(*v);
        }
        if (t.role == Role::in) continue;
        std::vector<uint8_t> out = std::move(left.bytes);
        if (launch == 1) {
          got[i] = std::move(out);
        } else if (const int64_t n = differing_elements(got[i], out, dtype_size(t.dtype)); n > 0) {
          r.repeat_diffs.push_back(RepeatDiff{t.name, launch, n});
          if (variants[i].size() < kMaxLaunchVariants) variants[i].push_back(LaunchVariant{launch, std::move(out)});
        }
      }
    }

    const PhaseClock decode_clock;  // the inputs in double: all for the reference, else those the checks read
    if (r.timings.reference_cached) decode_inputs(plan, initial, ctx, &host_reads);
    else decode_inputs(plan, initial, ctx);
    r.timings.inputs_ms += decode_clock.wall_ms();
    r.cpu.inputs_ms += decode_clock.cpu_ms();
    const PhaseClock reference_clock;
    const std::vector<bool> checked_inputs = inputs_read_by_checks(plan);
    const std::vector<uint64_t> inputs_before =
        outputs_key.empty() || r.timings.reference_cached ? std::vector<uint64_t>{} : input_digest(plan, ctx, checked_inputs);
    try {
      if (!r.timings.reference_cached) {
        enter_case_phase(kPhaseReference);
        (*reference)(ctx);
        enter_case_phase(kPhaseChecks);
      }
    } catch (const std::exception& e) {
      r.status = Status::ERROR;
      r.message = fmt::format("reference '{}' failed: {}", job.reference, e.what());
      return finish(r);
    } catch (...) {
      r.status = Status::ERROR;
      r.message = fmt::format("reference '{}' failed with an exception that is not a std::exception", job.reference);
      return finish(r);
    }
    r.timings.reference_ms = reference_read_ms + reference_clock.wall_ms();
    r.cpu.reference_ms = reference_read_cpu_ms + reference_clock.cpu_ms();
    for (const TensorPlan& t : plan.tensors) {
      if (t.role != Role::out) continue;
      const std::string breach = reference_guard_breach(ctx.tensors[t.name].data, armed[t.name], static_cast<size_t>(t.numel));
      if (breach.empty()) continue;
      r.status = Status::ERROR;
      r.message = fmt::format("reference '{}' wrote past its output '{}' ({} elements): {}; the reference is wrong, not the kernel",
                              job.reference, t.name, t.numel, breach);
      return finish(r);
    }
    if (!outputs_key.empty() && !r.timings.reference_cached) {
      const PhaseClock store_clock;
      store_reference_outputs(*references, outputs_key, plan, ctx, checked_inputs, inputs_before);
      r.timings.reference_store_ms = store_clock.wall_ms();
      r.cpu.reference_store_ms = store_clock.cpu_ms();
    }

    const PhaseClock compare_clock;
    bool pass = true;
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
      const TensorPlan& t = plan.tensors[i];
      if (t.role == Role::in) continue;
      const std::vector<double>& expected = ctx.tensors[t.name].data;
      if (static_cast<int64_t>(expected.size()) != t.numel) {
        r.status = Status::ERROR;
        r.message = fmt::format("reference '{}' resized output '{}' to {} elements (expected {})", job.reference, t.name, expected.size(), t.numel);
        return finish(r);
      }
      try {
        r.outputs.push_back(judge_output(CheckInput{plan, i, got, ctx}));
      } catch (const std::exception& e) {  // the reference did not give a rule what it needs
        r.status = Status::ERROR;
        r.message = fmt::format("output '{}': {}", t.name, e.what());
        return finish(r);
      }
      pass &= r.outputs.back().pass;
    }
    r.timings.compare_ms = compare_clock.wall_ms();
    r.cpu.compare_ms = compare_clock.cpu_ms();
    for (const GuardViolation& g : r.guards) r.notes.push_back("write outside the tensor: " + describe(g));
    for (const RepeatDiff& d : r.repeat_diffs)
      r.notes.push_back(fmt::format("{}: {} element(s) differ between launch 1 and launch {} on the same inputs", d.tensor, d.elements, d.launch));
    // Launches that disagree on the verdict make every verdict unreliable, so FLAKY comes first.
    const bool flaky = judge_variants(plan, got, variants, ctx, r);
    if (flaky) r.status = Status::FLAKY;
    else r.status = case_passes(r) ? Status::PASS : Status::FAIL;
    if (finding && !race) {  // whatever the outputs say: a GPU leaves the collective's result undefined
      r.status = Status::FAIL;
      r.message = *finding;
    }
    if (r.status == Status::FAIL && !race && !finding) {
      r.read_outside = outside_read_of(be, job, Launchable{fn, ptrs, argv.data(), device_inputs, on_device, initial}, guards);
      if (r.read_outside) r.notes.push_back("read outside the tensor: " + describe_read(*r.read_outside));
    }
    if (race) {  // whatever the outputs say: a GPU may interleave the accesses the host ran in order
      std::vector<uint64_t> allocations;
      for (size_t i = 0; i < ptrs.size(); ++i) allocations.push_back(ptrs[i] - data_offset(static_cast<size_t>(plan.tensors[i].offset_bytes)));
      r.status = Status::FAIL;
      r.message = race_message(*race, job.kernel, plan.tensors, allocations);
    }
    if (r.status == Status::PASS && every_tensor_empty(plan)) skip_empty_case(r);
    // Timed only once judged right: the launches reuse the inputs the kernel may have changed.
    if (r.status == Status::PASS && job.time_launches > 0) {
      CaseResult checked = r;  // what stands if the timed launches run past their own time
      checked.timings.wall_ms = case_clock.wall_ms();
      checked.cpu.case_ms = case_clock.cpu_ms();
      enter_case_phase(kPhaseTiming, &checked);
      r.timing = time_kernel(be, fn, plan, argv.data(), job.time_launches);
    }
    if (!pass && !job.repro_dir.empty()) {
      try {
        for (size_t i = 0; i < plan.tensors.size(); ++i)
          if (plan.tensors[i].role != Role::in) write_repro_output(job.repro_dir, plan.tensors[i], got[i], ctx.tensors[plan.tensors[i].name].data);
      } catch (const std::exception& e) {
        r.notes.push_back(std::string("could not write the repro output: ") + e.what());
      }
    }
  } catch (const MissingEntry& e) {
    r.status = Status::COMPILE_ERROR;
    r.message = e.what();
  } catch (const BackendError& e) {
    r.status = e.sticky ? Status::CRASH : Status::ERROR;
    r.message = e.what();
    if (e.sticky) {
      *sticky_fault = true;
      buffers.mark_dead();
    }
  }
  return finish(r);
}

}  // namespace hk
