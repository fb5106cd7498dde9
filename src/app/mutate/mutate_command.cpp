#include "app/mutate/mutate_command.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>

#include "model/compile_target.h"
#include "contracts/mutation_report.h"
#include "model/exit_codes.h"
#include "util/file_util.h"
#include "util/fnv1a.h"
#include "process/interrupt.h"
#include "process/memory_limit.h"
#include "app/mutate/mutant_run.h"
#include "app/mutate/mutants_file.h"
#include "app/mutate/mutation_operators.h"
#include "app/run_command.h"
#include "run/run_environment.h"
#include "run/runner.h"
#include "platform/backend_table.h"
#include "util/threads.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The cases of k the run takes: the small tier on the host backend unless --tier says.
std::vector<const CaseSpec*> cases_to_run(const KernelSpec& k, const std::string& tier) {
  std::vector<const CaseSpec*> out;
  for (const CaseSpec& c : k.cases)
    if (tier != "small" || c.tier == "small") out.push_back(&c);
  return out;
}

// Why k gets no score on this device before anything runs ("" when it may get one).
std::string why_not_scored(const KernelSpec& k, const CompileTarget& target, const std::string& backend) {
  if (!serves_vendor(k, target.vendor)) return not_for_vendor_message(k, target);
  if (on_cpu(backend) && !k.gpu_only.empty()) return "runs on a GPU only (\"gpu_only\": " + k.gpu_only + ")";
  return "";
}

// k's mutants from a --mutants file, refused when the file has none for k or k's source has
// changed since the file was written (its offsets would name other edits).
std::vector<Mutant> mutants_from_file(const MutantsFile& file, const KernelSpec& k, const std::string& source, const std::string& path) {
  const KernelMutants* km = file.find(k.name);
  if (!km) throw std::runtime_error(fmt::format("{} holds no mutants of kernel '{}'", path, k.name));
  if (km->source_hash != source_hash(source))
    throw std::runtime_error(fmt::format("{}: the mutants of '{}' were made from another version of {} (source hash {}, now {}): "
                                         "write the file again with --save-mutants",
                                         path, k.name, shown_path(k.source), km->source_hash, source_hash(source)));
  for (const Mutant& m : km->mutants)
    if (m.end > source.size()) throw std::runtime_error(fmt::format("{}: mutant '{}' of '{}' ends past its source", path, m.id, k.name));
  return km->mutants;
}

// Every selected kernel's record and, for those that may be scored, its mutants and the cases
// they run against. The kernels' cases run unmutated first, all in one run.
class MutationPlan {
 public:
  std::vector<KernelUnderMutation> kernels;
  std::vector<KernelMutation> records;  // one per kernel, in the selection's order
  bool unreadable = false;              // some kernel's source could not be read

  MutantsFile made;  // every kernel's mutants, as --save-mutants writes them

  // from: the mutants read from --mutants (null: made here, from the source's tokens).
  void add(const KernelSpec& k, const std::vector<const CaseSpec*>& cases, const std::string& why_not, const Settings& s,
           const MutantsFile* from) {
    KernelUnderMutation km;
    km.kernel = &k;
    KernelMutation rec;
    rec.kernel = k.name, rec.source = shown_path(k.source), rec.skipped = why_not;
    if (why_not.empty()) {
      std::vector<Mutant> all;
      try {
        km.source = read_file(k.source, "kernel source");
        all = from ? mutants_from_file(*from, k, km.source, s.mutate.mutants_from)
                   : generate_mutants(km.source, tokenize_source(k.source, km.source), k.entry);
        made.kernels.push_back(KernelMutants{k.name, rec.source, source_hash(km.source), all});
      } catch (const std::exception& e) {
        rec.skipped = e.what(), unreadable = true;
      }
      rec.candidates = all.size();
      for (const EquivalentMutant& e : k.equivalent_mutants)
        if (std::none_of(all.begin(), all.end(), [&](const Mutant& m) { return m.id == e.id; })) rec.stale_equivalents.push_back(e.id);
      km.mutants = select_mutants(std::move(all), s.mutate.max_mutants, s.seed ^ fnv1a(k.name));
      for (const Mutant& m : km.mutants) rec.mutants.push_back(unrun_record(m));
      if (rec.skipped.empty() && cases.empty()) rec.skipped = fmt::format("no case of tier '{}'", s.tier);
    }
    kernels.push_back(std::move(km));
    records.push_back(std::move(rec));
    cases_.push_back(rec_ok(records.back()) ? cases : std::vector<const CaseSpec*>{});
  }

  // The cases that pass unmutated: only they can tell a mutant. Sets each kernel's mutant time
  // limit from their times (an endless loop should cost seconds, not --timeout each).
  void run_baseline(const RunOptions& o, double timeout) {
    std::vector<CaseTask> tasks;
    for (size_t i = 0; i < kernels.size(); ++i)
      for (const CaseSpec* c : cases_[i]) tasks.push_back(CaseTask{kernels[i].kernel, c, ""});
    std::vector<CaseResult> results(tasks.size());
    if (!tasks.empty()) Runner(o).run_all(tasks, [&](size_t i, CaseResult r) { results[i] = std::move(r); });
    size_t at = 0;
    for (size_t i = 0; i < kernels.size(); ++i) {
      double slowest_ms = 0, total_ms = 0;
      for (const CaseSpec* c : cases_[i]) {
        const CaseResult& r = results[at++];
        total_ms += r.timings.wall_ms;
        if (r.status != Status::PASS) continue;
        kernels[i].passing.push_back(c);
        slowest_ms = std::max(slowest_ms, r.timings.wall_ms);
      }
      KernelMutation& rec = records[i];
      rec.cases = kernels[i].passing.size(), rec.seconds = total_ms / 1000;
      if (rec.skipped.empty() && kernels[i].passing.empty())
        rec.skipped = interrupt_signal() ? "the run was interrupted before its cases passed unmutated"
                                         : fmt::format("none of its {} case(s) passes unmutated", cases_[i].size());
      kernels[i].mutant_timeout_s = std::min(timeout, std::max(20.0, 5 * slowest_ms / 1000));
    }
  }

 private:
  static bool rec_ok(const KernelMutation& r) { return r.skipped.empty(); }
  std::vector<std::vector<const CaseSpec*>> cases_;  // per kernel: those to run unmutated
};

void print_kernel_line(const KernelMutation& rec) {
  fmt::print(stderr, "hkcheck: {}: {} killed, {} survived, {} discarded of {} mutants ({} made), {:.0f} s{}\n", rec.kernel,
             rec.count(MutantOutcome::KILLED), rec.count(MutantOutcome::SURVIVED), rec.count(MutantOutcome::DISCARDED), rec.mutants.size(),
             rec.candidates, rec.seconds, rec.skipped.empty() ? "" : "; no score: " + rec.skipped);
}

// Runs the plan's mutants, `parallel` at once, each through a Runner of its own with `per_mutant`
// workers (mutant slot t on device t mod devices). Each record lands in its place whatever the
// order they finish in; a kernel's line is printed when its last mutant is done.
class MutantPool {
 public:
  MutantPool(MutationPlan& plan, const RunOptions& base, const std::string& scratch, double budget_s, Clock::time_point t0)
      : plan_(plan), base_(base), scratch_(scratch), budget_s_(budget_s), t0_(t0) {}

  void run(int parallel, int per_mutant) {
    for (size_t i = 0; i < plan_.kernels.size(); ++i) {
      left_.push_back(plan_.records[i].skipped.empty() ? plan_.kernels[i].mutants.size() : 0);
      for (size_t j = 0; j < left_[i]; ++j) queue_.push_back({i, j});
      if (left_[i] == 0) print_kernel_line(plan_.records[i]);
    }
    on_threads(static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(parallel, 0)), queue_.size())), [&](int t) {
      RunOptions o = base_;
      o.devices = {base_.devices[static_cast<size_t>(t) % base_.devices.size()]};
      o.device = o.devices.front(), o.jobs = per_mutant;
      work(o);
    });
  }

  bool budget_ran_out() const { return budget_ran_out_; }

 private:
  bool budget_left() const { return budget_s_ <= 0 || seconds_since(t0_) < budget_s_; }

  void work(const RunOptions& o) {
    for (size_t q; (q = next_++) < queue_.size();) {
      const auto [i, j] = queue_[q];
      const KernelUnderMutation& k = plan_.kernels[i];
      MutantRecord r = unrun_record(k.mutants[j]);
      if (!budget_left()) budget_ran_out_ = true;
      else if (!interrupt_signal()) {
        try {
          r = run_mutant(k, k.mutants[j], o, scratch_);
        } catch (const std::exception& e) {  // a thread must not end the process
          r.outcome = MutantOutcome::DISCARDED, r.why = e.what();
        }
      }
      std::lock_guard<std::mutex> lock(done_);
      KernelMutation& rec = plan_.records[i];
      rec.seconds += r.seconds;
      rec.mutants[j] = std::move(r);
      if (--left_[i] == 0) print_kernel_line(rec);
    }
  }

  MutationPlan& plan_;
  const RunOptions& base_;
  std::string scratch_;
  double budget_s_;
  Clock::time_point t0_;
  std::vector<std::pair<size_t, size_t>> queue_;  // (kernel, mutant), in the report's order
  std::vector<size_t> left_;                      // per kernel: mutants not yet done
  std::atomic<size_t> next_{0};
  std::atomic<bool> budget_ran_out_{false};
  std::mutex done_;
};

// --save-mutants: every kernel's mutants written, nothing run.
int save_mutants(const MutationPlan& plan, const std::string& path) {
  for (const KernelMutation& rec : plan.records)
    if (!rec.skipped.empty()) fmt::print(stderr, "hkcheck: {}: no mutants saved: {}\n", rec.kernel, rec.skipped);
  try {
    write_mutants_file(path, plan.made);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hkcheck: --save-mutants: {}\n", e.what());
    return kExitUsage;
  }
  size_t n = 0;
  for (const KernelMutants& k : plan.made.kernels) n += k.mutants.size();
  fmt::print(stderr, "hkcheck: wrote {} mutant(s) of {} kernel(s) to {}; `hkcheck mutate --mutants {}` runs them without libclang\n", n,
             plan.made.kernels.size(), path, path);
  return plan.unreadable ? kExitUsage : kExitOk;
}

bool write_report(const MutationReport& report, const std::string& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  std::string err;
  if (ec || !write_file_atomic(out_dir + "/mutation_report.json", nlohmann::json(report).dump(2) + "\n", &err) ||
      !write_file_atomic(out_dir + "/mutation_report.md", mutation_markdown(report), &err)) {
    fmt::print(stderr, "hkcheck: cannot write the mutation report in {}: {}\n", out_dir, ec ? ec.message() : err);
    return false;
  }
  return true;
}

int exit_code(const MutationReport& report, bool unreadable, bool manifest_errors) {
  if (interrupt_signal()) return 128 + interrupt_signal();
  if (unreadable || manifest_errors) return kExitUsage;
  for (const KernelMutation& k : report.kernels)
    if (k.count(MutantOutcome::SURVIVED)) return kExitFailed;
  return kExitOk;
}

}  // namespace

std::string default_mutation_folder(const std::vector<std::string>& patterns) {
  if (patterns.empty()) return "results/mutation";
  std::string name;
  for (const std::string& p : patterns) {
    if (name.size() > 80) break;
    name += (name.empty() ? "" : "+") + p;
  }
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '+') c = '_';  // no '/', no '..
  return "results/mutation/runs/" + name;
}

int mutate_command(Settings& s) {
  install_interrupt_handlers();
  auto sel = select_cases(s);
  if (!sel) return kExitUsage;
  if (s.devices.empty()) s.devices = {s.device};
  if (s.jobs == 0) s.jobs = default_jobs(s.devices.size());
  RunOptions base = runner_options(s, *sel);
  base.compile_ahead = 0;  // each mutant is compiled once, by the worker that runs its first case
  std::string why;
  const auto dev = Runner(base).probe(&why);
  if (!dev) {
    fmt::print(stderr, "hkcheck: mutate needs a device (the host backend serves): {}\n", why);
    return kExitNothingChecked;
  }
  base.backend = dev->backend;
  const std::string vendor = s.source_vendor.empty() ? vendor_of_arch(dev->arch) : s.source_vendor;
  const CompileTarget target = run_target(dev->backend, dev->arch, vendor);
  use_compile_target(sel->loaded.kernels, target);
  if (s.tier == "auto") s.tier = on_cpu(dev->backend) ? "small" : "all";
  // The whole project's report lives in results/mutation; a run of some kernels gets a folder of
  // its own below it, so it never replaces that report.
  if (s.report.out_dir.empty()) s.report.out_dir = default_mutation_folder(s.select.patterns);
  // All the workers a run would have, spread over the mutants: each mutant's cases stop at the
  // first that fails, so mutants side by side keep the workers busier than workers per mutant.
  const int workers = s.jobs * static_cast<int>(s.devices.size());
  const int parallel = s.mutate.parallel > 0 ? s.mutate.parallel : workers;
  const int per_mutant = std::max(1, workers / parallel);
  base.memory_limit = resolve_memory_limit(s.memory_limit, std::max(workers, parallel * per_mutant));

  const RunInfo info = run_info(s.argv, sel->loaded.errors);
  MutationReport report;
  report.hkcheck_version = info.hkcheck_version, report.git_commit = info.git_commit, report.started_at = info.started_at;
  report.command = s.argv, report.device = dev, report.host_profile = on_cpu(dev->backend) ? s.host.profile : "";
  report.seed = s.seed, report.budget_s = s.mutate.budget_s, report.max_mutants = s.mutate.max_mutants, report.parallel = parallel;
  const Clock::time_point t0 = Clock::now();
  std::optional<MutantsFile> from;
  if (!s.mutate.mutants_from.empty()) {
    try {
      from = read_mutants_file(s.mutate.mutants_from);
    } catch (const std::exception& e) {
      fmt::print(stderr, "hkcheck: --mutants: {}\n", e.what());
      return kExitUsage;
    }
  }
  MutationPlan plan;
  for (const KernelSpec* k : sel->selection.kernels)
    plan.add(*k, cases_to_run(*k, s.tier), why_not_scored(*k, target, dev->backend), s, from ? &*from : nullptr);
  if (!s.mutate.save_mutants.empty()) return save_mutants(plan, s.mutate.save_mutants);
  size_t queued = 0;
  for (size_t i = 0; i < plan.kernels.size(); ++i) queued += plan.records[i].skipped.empty() ? plan.kernels[i].mutants.size() : 0;
  fmt::print(stderr, "hkcheck: mutate {} kernel(s): their cases unmutated, then {} mutant(s), {} at once with {} worker(s) each\n",
             plan.kernels.size(), queued, parallel, per_mutant);
  plan.run_baseline(base, s.timeout);
  const std::string scratch = s.report.out_dir + "/scratch";
  MutantPool pool(plan, base, scratch, s.mutate.budget_s, t0);
  pool.run(parallel, per_mutant);
  std::error_code ec;
  fs::remove_all(scratch, ec);
  report.kernels = std::move(plan.records);
  report.budget_exhausted = pool.budget_ran_out();
  report.wall_s = seconds_since(t0);
  if (!write_report(report, s.report.out_dir)) return kExitUsage;
  fmt::print(stderr, "hkcheck: mutation report in {}/mutation_report.md\n", s.report.out_dir);
  return exit_code(report, plan.unreadable, !sel->loaded.errors.empty());
}

}  // namespace hk
