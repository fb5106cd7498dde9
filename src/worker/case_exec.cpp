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
#include "worker/case_limits.h"
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
#include "model/status.h"

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

// One case as it passes through the stages of execute_case: what each stage found, for the
// stages after it. A stage returns false when it has decided the case (r says how).
struct CaseRun {
  Backend& be;
  const CaseJob& job;
  CompileCache& cache;
  ReferenceCache* references;
  DeviceInputs* device_inputs;
  const CasePlan& plan;
  CaseResult r;
  const ref::Function* reference = nullptr;
  int64_t device_bytes = 0;  // every tensor with its guards
  // Inputs: every tensor's bytes before a launch (those made on the device only where read), and
  // the reference's context, in double only once read.
  ref::Context ctx;
  std::vector<std::vector<uint8_t>> initial;
  std::vector<bool> on_device;
  std::string outputs_key;  // of the reference's outputs in the cache; "" when not cached
  // The kernel.
  std::string source, key;
  CompileOutput compiled;
  Backend::Kernel fn = nullptr;
  // Its buffers and arguments.
  std::vector<BufferGuards> guards;
  std::vector<uint64_t> ptrs;
  std::vector<AlignedArgument> arguments;
  std::vector<void*> argv;
  // The launches and what they left.
  std::map<std::string, const double*> armed;  // where each output's guard was laid
  double reference_read_ms = 0, reference_read_cpu_ms = 0;
  std::vector<bool> host_reads;
  std::vector<std::vector<uint8_t>> got;
  std::vector<std::vector<LaunchVariant>> variants;
  std::optional<RaceReport> race;      // --races: the launch ran to its end, then said what raced
  std::optional<std::string> finding;  // the launch ran to its end, then said what it left undefined
  bool outputs_pass = true;
};

bool decided(CaseResult& r, Status status, const std::string& message) {
  r.status = status;
  r.message = message;
  return false;
}

// The reference loads, and the case fits the device's limits and memory and the worker's memory.
bool fits(CaseRun& c) {
  CaseResult& r = c.r;
  if (!c.job.reference_error.empty()) return decided(r, r.status, c.job.reference_error);
  try {
    c.reference = load_reference(c.job.reference_library, c.job.reference);
  } catch (const std::exception& e) {
    return decided(r, r.status, e.what());
  }
  r.launch = {{"grid", c.plan.grid}, {"block", c.plan.block}, {"shared_bytes", c.plan.shared_bytes}};
  const DeviceInfo& dev = c.be.device();
  if (over_device_limits(c.plan, dev, r)) return false;
  // Tensors (and their guards) that cannot fit in the device's memory are not attempted.
  for (const TensorPlan& t : c.plan.tensors) c.device_bytes += static_cast<int64_t>(allocation_bytes(t.bytes(), t.offset_bytes));
  if (c.device_bytes > dev.total_memory) {
    r.reason = reason_name(Reason::TOO_LARGE);
    r.limit = LimitExceeded{"device memory for all tensors and their guards (bytes)", c.device_bytes, dev.total_memory};
    return decided(r, Status::SKIP,
                   fmt::format("the tensors need {} bytes with their guards; the device has {} (over by {})", c.device_bytes,
                               dev.total_memory, c.device_bytes - dev.total_memory));
  }
  return !over_worker_memory(c.plan, dev, c.device_bytes, r);
}

// Inputs in their device bytes, exactly what the kernel will see; element-wise ones are made on
// the GPU where it can (device_inputs.h), the rest here.
bool inputs_made(CaseRun& c) {
  const PhaseClock inputs_clock;
  c.ctx = context_without_inputs(c.job);
  c.on_device = c.device_inputs ? c.device_inputs->tensors_made_here(c.plan) : std::vector<bool>(c.plan.tensors.size(), false);
  // The key of the reference's outputs in the cache, which its derived inputs' runs share.
  const std::string library_id = c.references && c.job.reference_cache ? reference_library_identity(c.job.reference_library) : "";
  c.outputs_key = library_id.empty() ? "" : reference_cache_key(c.job, library_id);
  try {
    c.initial = packed_inputs(c.job, &c.on_device, DerivedRunCache{c.references, c.outputs_key, &c.r.notes});
  } catch (const InputError& e) {  // a harness-side error, not a crash of the kernel
    return decided(c.r, c.r.status, fmt::format("{}: {}", c.job.manifest, e.what()));
  }
  c.r.timings.inputs_ms = inputs_clock.wall_ms();
  c.r.cpu.inputs_ms = inputs_clock.cpu_ms();
  return true;
}

// The kernel compiled (or fetched from the cache), its entry among what it defines.
bool compiled(CaseRun& c) {
  CaseResult& r = c.r;
  if (!c.job.gpu_only.empty() && on_cpu(c.be.device().backend)) {
    r.reason = reason_name(Reason::GPU_ONLY);
    return decided(r, Status::SKIP, "the manifest marks this kernel GPU-only: " + c.job.gpu_only);
  }
  try {
    c.source = read_file(c.job.source, "kernel source");
  } catch (const std::exception& e) {
    return decided(r, Status::ERROR, e.what());
  }
  enter_case_phase(kPhaseCompile);
  const auto t_compile = Clock::now();
  bool cached = false;
  c.compiled = c.cache.get(c.be, case_compile(c.job, c.source), &cached, &c.key);
  for (const std::string& repair : take_cache_repairs()) r.notes.push_back(repair);  // a damaged entry, prelude or header made again
  r.timings.compile_ms = ms_since(t_compile);
  r.timings.compile_cached = cached;
  if (!c.compiled.ok) {
    r.compile_log = bounded_text(c.compiled.log, kMaxCaseCompileLog, "the compiler's log");
    return decided(r, Status::COMPILE_ERROR,
                   compile_error_summary(c.compiled.log, c.source, c.job.source, c.job.entry, c.job.file_entries));
  }
  if (const auto bad = c.compiled.entry_errors.find(c.job.entry); bad != c.compiled.entry_errors.end())
    return decided(r, Status::COMPILE_ERROR, bad->second);
  if (!c.compiled.log.empty()) r.notes.push_back("compiler log: " + bounded_text(c.compiled.log, kMaxCaseCompileLog, "the compiler's log"));
  return true;
}

// The kernel loaded, its parameters fit the manifest's arguments, and its block and shared
// memory fit the device once registers are counted.
bool loaded(CaseRun& c) {
  CaseResult& r = c.r;
  const CasePlan& plan = c.plan;
  const DeviceInfo& dev = c.be.device();
  const auto symbol = c.compiled.symbols.find(c.job.entry);
  const std::string& name = symbol == c.compiled.symbols.end() ? c.job.entry : symbol->second;
  c.fn = c.cache.load(c.be, c.key, c.compiled.binary, name);
  if (const auto params = c.be.parameters(c.fn, plan.args.size()))
    if (const std::string bad = argument_mismatch(plan, *params); !bad.empty())
      return decided(r, Status::ERROR, fmt::format("{}: the manifest's arguments do not fit '{}': {}", c.job.manifest, c.job.entry, bad));
  const KernelAttributes attrs = c.be.attributes(c.fn);
  r.resources = run_resources(dev.backend, c.compiled, name, attrs);
  if (plan.block_threads() > attrs.max_threads_per_block) {
    r = skip_limit(r, fmt::format("threads per block for this kernel ({} registers per thread)", attrs.registers), plan.block_threads(),
                   attrs.max_threads_per_block);
    return false;
  }
  const int64_t shared = attrs.static_shared_bytes + plan.shared_bytes;
  if (shared > dev.shared_per_block_optin) {
    r = skip_limit(r, fmt::format("shared memory per block, static {} + dynamic {} (bytes)", attrs.static_shared_bytes, plan.shared_bytes),
                   shared, dev.shared_per_block_optin);
    return false;
  }
  if (shared > dev.shared_per_block) {
    c.be.allow_dynamic_shared(c.fn, plan.shared_bytes);
    r.notes.push_back(fmt::format("opted in to {} bytes of dynamic shared memory (default limit {})", plan.shared_bytes, dev.shared_per_block));
  }
  return true;
}

// Every buffer sits between two guard regions; each argument's bytes as the kernel's type lays
// them out (arg_layout.h), aligned for it.
bool buffers_laid(CaseRun& c, Buffers& buffers) {
  for (size_t i = 0; i < c.plan.tensors.size(); ++i) {
    const TensorPlan& t = c.plan.tensors[i];
    const size_t offset = static_cast<size_t>(t.offset_bytes);
    uint64_t base = 0;
    try {
      base = buffers.alloc(allocation_bytes(t.bytes(), offset));
    } catch (const BackendError& e) {
      if (e.sticky) throw;
      c.r.reason = reason_name(Reason::TOO_LARGE);
      return decided(c.r, Status::SKIP,
                     fmt::format("the device could not allocate {} bytes for tensor '{}': {}", allocation_bytes(t.bytes(), offset), t.name, e.what()));
    }
    c.ptrs.push_back(base + data_offset(offset));  // offset_bytes past an aligned address
    const AllocationSlack slack = c.be.slack(base);
    c.guards.push_back(buffer_guards(i, base, t.bytes(), slack.before, slack.after, offset, t.dtype));
  }
  for (const ArgPlan& a : c.plan.args) c.arguments.emplace_back(argument_bytes(a, c.ptrs));
  for (AlignedArgument& a : c.arguments) c.argv.push_back(a.data());
  c.argv.push_back(nullptr);  // lets the host backend check the count; GPU launches read only what the kernel takes
  return true;
}

// What one launch left in tensor i: its guards' state, and for an output its bytes (launch 1) or
// how it differs from launch 1's.
void take_launch_output(CaseRun& c, size_t i, int launch) {
  const TensorPlan& t = c.plan.tensors[i];
  TensorAfterLaunch left = take_tensor(c.be, t, c.ptrs[i], c.guards[i]);
  // A guard touched in several launches is reported once, as the first launch saw it.
  for (const auto& v : {check_guard(t.name, "before", left.before, c.guards[i].before), check_guard(t.name, "after", left.after, c.guards[i].after)}) {
    if (v && std::none_of(c.r.guards.begin(), c.r.guards.end(), [&](const GuardViolation& g) { return g.tensor == v->tensor && g.side == v->side; }))
      c.r.guards.push_back(*v);
  }
  if (t.role == Role::in) return;
  std::vector<uint8_t> out = std::move(left.bytes);
  if (launch == 1) {
    c.got[i] = std::move(out);
  } else if (const int64_t n = differing_elements(c.got[i], out, dtype_size(t.dtype)); n > 0) {
    c.r.repeat_diffs.push_back(RepeatDiff{t.name, launch, n});
    if (c.variants[i].size() < kMaxLaunchVariants) c.variants[i].push_back(LaunchVariant{launch, std::move(out)});
  }
}

// The checked launches: inputs re-uploaded and outputs re-poisoned before each, so each starts
// from the same bytes. Outputs computed before for the same library, reference, plan and inputs
// are read back first: what the host must read of the inputs follows from it.
void launched(CaseRun& c) {
  CaseResult& r = c.r;
  const PhaseClock read_clock;
  for (const TensorPlan& t : c.plan.tensors)
    if (t.role == Role::out) c.armed[t.name] = c.ctx.tensors[t.name].data.data();
  r.timings.reference_cached = !c.outputs_key.empty() && fill_reference_outputs(*c.references, c.outputs_key, c.plan, c.ctx, &r.notes);
  c.reference_read_ms = read_clock.wall_ms(), c.reference_read_cpu_ms = read_clock.cpu_ms();
  c.host_reads = inputs_the_host_reads(c.plan, r.timings.reference_cached);
  const int launches = std::max(c.job.repeat, 1);
  r.launches = launches;
  c.got.assign(c.plan.tensors.size(), {});
  c.variants.assign(c.plan.tensors.size(), {});
  enter_case_phase(kPhaseKernel);
  for (int launch = 1; launch <= launches; ++launch) {
    const PhaseClock put_clock;
    for (size_t i = 0; i < c.plan.tensors.size(); ++i)
      put_tensor(c.be, c.job, i, c.ptrs[i], c.guards[i], c.device_inputs, c.on_device, c.initial, launch == 1 && c.host_reads[i]);
    if (launch == 1) r.timings.inputs_ms += put_clock.wall_ms(), r.cpu.inputs_ms += put_clock.cpu_ms();
    c.be.poison_shared();  // a slot the kernel reads unwritten holds NaN, never a fresh context's zero
    const auto t_kernel = Clock::now();
    try {
      c.be.launch(c.fn, c.plan.grid, c.plan.block, c.plan.shared_bytes, c.argv.data());
    } catch (const RacesFound& e) {
      if (!c.race) c.race = e.report;
    } catch (const LaunchFinding& e) {
      if (!c.finding) c.finding = e.what();
    }
    c.be.synchronize();
    if (launch == 1) r.timings.kernel_ms = ms_since(t_kernel);
    for (size_t i = 0; i < c.plan.tensors.size(); ++i) take_launch_output(c, i, launch);
  }
}

// The reference ran (or its outputs were read back), wrote only its outputs, and was stored.
bool reference_ran(CaseRun& c) {
  CaseResult& r = c.r;
  const PhaseClock decode_clock;  // the inputs in double: all for the reference, else those the checks read
  if (r.timings.reference_cached) decode_inputs(c.plan, c.initial, c.ctx, &c.host_reads);
  else decode_inputs(c.plan, c.initial, c.ctx);
  r.timings.inputs_ms += decode_clock.wall_ms();
  r.cpu.inputs_ms += decode_clock.cpu_ms();
  const PhaseClock reference_clock;
  const std::vector<bool> checked_inputs = inputs_read_by_checks(c.plan);
  const std::vector<uint64_t> inputs_before =
      c.outputs_key.empty() || r.timings.reference_cached ? std::vector<uint64_t>{} : input_digest(c.plan, c.ctx, checked_inputs);
  try {
    if (!r.timings.reference_cached) {
      enter_case_phase(kPhaseReference);
      (*c.reference)(c.ctx);
      enter_case_phase(kPhaseChecks);
    }
  } catch (const std::exception& e) {
    return decided(r, Status::ERROR, fmt::format("reference '{}' failed: {}", c.job.reference, e.what()));
  } catch (...) {
    return decided(r, Status::ERROR, fmt::format("reference '{}' failed with an exception that is not a std::exception", c.job.reference));
  }
  r.timings.reference_ms = c.reference_read_ms + reference_clock.wall_ms();
  r.cpu.reference_ms = c.reference_read_cpu_ms + reference_clock.cpu_ms();
  for (const TensorPlan& t : c.plan.tensors) {
    if (t.role != Role::out) continue;
    const std::string breach = reference_guard_breach(c.ctx.tensors[t.name].data, c.armed[t.name], static_cast<size_t>(t.numel));
    if (!breach.empty())
      return decided(r, Status::ERROR, fmt::format("reference '{}' wrote past its output '{}' ({} elements): {}; the reference is wrong, not the kernel",
                                                   c.job.reference, t.name, t.numel, breach));
  }
  if (!c.outputs_key.empty() && !r.timings.reference_cached) {
    const PhaseClock store_clock;
    store_reference_outputs(*c.references, c.outputs_key, c.plan, c.ctx, checked_inputs, inputs_before);
    r.timings.reference_store_ms = store_clock.wall_ms();
    r.cpu.reference_store_ms = store_clock.cpu_ms();
  }
  return true;
}

// Every output judged by its rules (output_check.h) against the reference's.
bool outputs_judged(CaseRun& c) {
  CaseResult& r = c.r;
  const PhaseClock compare_clock;
  for (size_t i = 0; i < c.plan.tensors.size(); ++i) {
    const TensorPlan& t = c.plan.tensors[i];
    if (t.role == Role::in) continue;
    const std::vector<double>& expected = c.ctx.tensors[t.name].data;
    if (static_cast<int64_t>(expected.size()) != t.numel)
      return decided(r, Status::ERROR, fmt::format("reference '{}' resized output '{}' to {} elements (expected {})", c.job.reference,
                                                   t.name, expected.size(), t.numel));
    try {
      r.outputs.push_back(judge_output(CheckInput{c.plan, i, c.got, c.ctx}));
    } catch (const std::exception& e) {  // the reference did not give a rule what it needs
      return decided(r, Status::ERROR, fmt::format("output '{}': {}", t.name, e.what()));
    }
    c.outputs_pass &= r.outputs.back().pass;
  }
  r.timings.compare_ms = compare_clock.wall_ms();
  r.cpu.compare_ms = compare_clock.cpu_ms();
  return true;
}

// The verdict from the outputs, the guards, the launches' agreement and what the backend saw:
// FLAKY first (launches that disagree make every verdict unreliable), then a finding or a race
// whatever the outputs say; a FAIL looks for a read outside its tensors.
void verdict_given(CaseRun& c) {
  CaseResult& r = c.r;
  for (const GuardViolation& g : r.guards) r.notes.push_back("write outside the tensor: " + describe(g));
  for (const RepeatDiff& d : r.repeat_diffs)
    r.notes.push_back(fmt::format("{}: {} element(s) differ between launch 1 and launch {} on the same inputs", d.tensor, d.elements, d.launch));
  if (judge_variants(c.plan, c.got, c.variants, c.ctx, r)) r.status = Status::FLAKY;
  else r.status = case_passes(r) ? Status::PASS : Status::FAIL;
  if (c.finding && !c.race) {  // a GPU leaves the collective's result undefined
    r.status = Status::FAIL;
    r.message = *c.finding;
  }
  if (r.status == Status::FAIL && !c.race && !c.finding) {
    r.read_outside = outside_read_of(c.be, c.job, Launchable{c.fn, c.ptrs, c.argv.data(), c.device_inputs, c.on_device, c.initial}, c.guards);
    if (r.read_outside) r.notes.push_back("read outside the tensor: " + describe_read(*r.read_outside));
  }
  if (c.race) {  // a GPU may interleave the accesses the host ran in order
    std::vector<uint64_t> allocations;
    for (size_t i = 0; i < c.ptrs.size(); ++i) allocations.push_back(c.ptrs[i] - data_offset(static_cast<size_t>(c.plan.tensors[i].offset_bytes)));
    r.status = Status::FAIL;
    r.message = race_message(*c.race, c.job.kernel, c.plan.tensors, allocations);
  }
  if (r.status == Status::PASS && every_tensor_empty(c.plan)) skip_empty_case(r);
}

// Timed only once judged right (the launches reuse the inputs the kernel may have changed); a
// failing output's bytes kept for the repro.
void timed_and_kept(CaseRun& c, const PhaseClock& case_clock) {
  CaseResult& r = c.r;
  if (r.status == Status::PASS && c.job.time_launches > 0) {
    CaseResult checked = r;  // what stands if the timed launches run past their own time
    checked.timings.wall_ms = case_clock.wall_ms();
    checked.cpu.case_ms = case_clock.cpu_ms();
    enter_case_phase(kPhaseTiming, &checked);
    r.timing = time_kernel(c.be, c.fn, c.plan, c.argv.data(), c.job.time_launches);
  }
  if (c.outputs_pass || c.job.repro_dir.empty()) return;
  try {
    for (size_t i = 0; i < c.plan.tensors.size(); ++i)
      if (c.plan.tensors[i].role != Role::in)
        write_repro_output(c.job.repro_dir, c.plan.tensors[i], c.got[i], c.ctx.tensors[c.plan.tensors[i].name].data);
  } catch (const std::exception& e) {
    r.notes.push_back(std::string("could not write the repro output: ") + e.what());
  }
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
  CaseRun c{be, job, cache, references, device_inputs, job.plan, job_result(job)};
  auto finish = [&]() {
    if (device_inputs)
      for (std::string& note : device_inputs->take_notes()) c.r.notes.push_back(std::move(note));
    c.r.timings.wall_ms = case_clock.wall_ms();
    c.r.cpu.case_ms = case_clock.cpu_ms();
    return c.r;
  };
  if (!fits(c) || !inputs_made(c) || !compiled(c)) return finish();
  Buffers buffers(be);  // freed on every path out, unless the context is gone
  try {
    if (loaded(c) && buffers_laid(c, buffers)) {
      launched(c);
      if (reference_ran(c) && outputs_judged(c)) {
        verdict_given(c);
        timed_and_kept(c, case_clock);
      }
    }
  } catch (const MissingEntry& e) {
    decided(c.r, Status::COMPILE_ERROR, e.what());
  } catch (const BackendError& e) {
    decided(c.r, e.sticky ? Status::CRASH : Status::ERROR, e.what());
    if (e.sticky) {
      *sticky_fault = true;
      buffers.mark_dead();
    }
  }
  return finish();
}

}  // namespace hk
