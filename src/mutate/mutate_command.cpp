#include "mutate/mutate_command.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "compile_target.h"
#include "contracts/mutation_report.h"
#include "exit_codes.h"
#include "file_util.h"
#include "fnv1a.h"
#include "interrupt.h"
#include "mutate/mutation_operators.h"
#include "run_command.h"
#include "run_environment.h"
#include "runner.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The source path as the report names it: relative to the current folder when inside it.
std::string shown_path(const std::string& path) {
  std::error_code ec;
  const fs::path rel = fs::relative(path, fs::current_path(), ec);
  return ec || rel.empty() || *rel.begin() == ".." ? path : rel.string();
}

std::string first_line_of(const std::string& text) { return text.substr(0, std::min(text.find('\n'), size_t{300})); }

// One kernel's mutation run: its passing cases, then each selected mutant against them.
class KernelMutator {
 public:
  KernelMutator(const Settings& s, const RunOptions& base, const std::string& scratch, Clock::time_point deadline_from)
      : s_(s), base_(base), scratch_(scratch), t0_(deadline_from) {}

  bool budget_left() const { return s_.mutate.budget_s <= 0 || seconds_since(t0_) < s_.mutate.budget_s; }
  bool budget_ran_out() const { return budget_ran_out_; }

  // False when the source could not be read (the record says why).
  bool operator()(const KernelSpec& k, const std::vector<const CaseSpec*>& cases, KernelMutation& rec) {
    const Clock::time_point start = Clock::now();
    rec.kernel = k.name, rec.source = shown_path(k.source);
    std::string source;
    std::vector<Mutant> all;
    try {
      source = read_file(k.source, "kernel source");
      all = generate_mutants(source, tokenize_source(k.source, source), k.entry);
    } catch (const std::exception& e) {
      rec.skipped = e.what();
      return false;
    }
    rec.candidates = all.size();
    note_stale_equivalents(k, all, rec);
    const std::vector<const CaseSpec*> passing = baseline(k, cases, rec);
    rec.cases = passing.size();
    for (Mutant& m : select_mutants(std::move(all), s_.mutate.max_mutants, s_.seed ^ fnv1a(k.name)))
      rec.mutants.push_back(run_mutant(k, passing, source, m));
    rec.seconds = seconds_since(start);
    return true;
  }

 private:
  void note_stale_equivalents(const KernelSpec& k, const std::vector<Mutant>& all, KernelMutation& rec) const {
    for (const EquivalentMutant& e : k.equivalent_mutants)
      if (std::none_of(all.begin(), all.end(), [&](const Mutant& m) { return m.id == e.id; })) rec.stale_equivalents.push_back(e.id);
  }

  // base_ names the probed backend, so no worker is started just to find it again (the runner
  // then knows no arch: the cases run are those that passed, with no arch-specific expectation).
  std::vector<CaseResult> run_cases(const KernelSpec& k, const std::vector<const CaseSpec*>& cases, const RunOptions& o) {
    Runner runner(o);
    std::vector<CaseTask> tasks;
    for (const CaseSpec* c : cases) tasks.push_back(CaseTask{&k, c, ""});
    std::vector<CaseResult> results(tasks.size());
    runner.run_all(tasks, [&](size_t i, CaseResult r) { results[i] = std::move(r); });
    return results;
  }

  // The cases that pass unmutated: only they can tell a mutant. Sets the mutants' time limit
  // from their times (an endless loop should cost seconds, not --timeout each).
  std::vector<const CaseSpec*> baseline(const KernelSpec& k, const std::vector<const CaseSpec*>& cases, KernelMutation& rec) {
    std::vector<const CaseSpec*> passing;
    double slowest_ms = 0;
    const std::vector<CaseResult> results = run_cases(k, cases, base_);
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].status == Status::PASS) {
        passing.push_back(cases[i]);
        slowest_ms = std::max(slowest_ms, results[i].timings.wall_ms);
      }
    if (passing.empty()) rec.skipped = fmt::format("none of its {} case(s) passes unmutated", cases.size());
    mutant_timeout_s_ = std::min(s_.timeout, std::max(20.0, 5 * slowest_ms / 1000));
    return passing;
  }

  MutantRecord run_mutant(const KernelSpec& k, const std::vector<const CaseSpec*>& passing, const std::string& source, const Mutant& m) {
    MutantRecord r;
    r.id = m.id, r.op = m.op, r.description = m.description, r.line = m.line;
    if (passing.empty()) return r;  // NOT_RUN: nothing to run it against
    if (!budget_left() || interrupt_signal()) {
      budget_ran_out_ = budget_ran_out_ || !budget_left();
      return r;
    }
    const Clock::time_point start = Clock::now();
    // The mutant beside nothing else, in a folder of its own; the original's folder stays on the
    // include path, so its headers (and ../ paths from there) resolve as before.
    const fs::path dir = fs::path(scratch_) / k.name / fmt::format("{:016x}", fnv1a(m.id));
    std::error_code ec;
    fs::create_directories(dir, ec);
    KernelSpec mk = k;
    mk.source = (dir / fs::path(k.source).filename()).string();
    mk.include_dirs.insert(mk.include_dirs.begin(), fs::absolute(k.source).parent_path().string());
    std::string err;
    if (ec || !write_file_atomic(mk.source, apply_mutant(source, m), &err)) {
      r.outcome = MutantOutcome::DISCARDED, r.why = "could not write the mutant: " + (ec ? ec.message() : err);
      return r;
    }
    RunOptions o = base_;
    o.max_fail = 1, o.timeout_s = mutant_timeout_s_;
    std::vector<CaseResult> results;
    try {
      results = run_cases(mk, passing, o);
    } catch (const std::exception& e) {
      r.outcome = MutantOutcome::DISCARDED, r.why = e.what();
    }
    fs::remove_all(dir, ec);
    judge(k, results, source, m, r);
    r.seconds = seconds_since(start);
    return r;
  }

  void judge(const KernelSpec& k, const std::vector<CaseResult>& results, const std::string& source, const Mutant& m, MutantRecord& r) const {
    if (results.empty()) return;
    for (const CaseResult& c : results) {
      if (c.status == Status::PASS || c.status == Status::NOT_RUN) continue;
      if (c.status == Status::COMPILE_ERROR) {
        r.outcome = MutantOutcome::DISCARDED, r.why = first_line_of(c.message);
      } else {
        r.outcome = MutantOutcome::KILLED;
        r.killed_by = fmt::format("{}: {} {}", c.case_name, status_name(c.status), first_line_of(c.message));
      }
      return;
    }
    if (std::any_of(results.begin(), results.end(), [](const CaseResult& c) { return c.status == Status::NOT_RUN; })) return;  // interrupted
    r.outcome = MutantOutcome::SURVIVED;
    r.diff = mutant_diff(shown_path(k.source), source, m);
    for (const EquivalentMutant& e : k.equivalent_mutants)
      if (e.id == m.id) r.outcome = MutantOutcome::EQUIVALENT, r.why = e.why;
  }

  const Settings& s_;
  const RunOptions& base_;
  std::string scratch_;
  Clock::time_point t0_;
  double mutant_timeout_s_ = 30;
  bool budget_ran_out_ = false;
};

// The cases of k the run takes: the small tier on the host backend unless --tier says.
std::vector<const CaseSpec*> cases_to_run(const KernelSpec& k, const std::string& tier) {
  std::vector<const CaseSpec*> out;
  for (const CaseSpec& c : k.cases)
    if (tier != "small" || c.tier == "small") out.push_back(&c);
  return out;
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

}  // namespace

int mutate_command(Settings& s) {
  install_interrupt_handlers();
  auto sel = select_cases(s);
  if (!sel) return kExitUsage;
  if (s.devices.empty()) s.devices = {s.device};
  if (s.jobs == 0) s.jobs = default_jobs(s.devices.size());
  RunOptions base = runner_options(s, *sel);
  Runner probe_runner(base);
  std::string why;
  const auto dev = probe_runner.probe(&why);
  if (!dev) {
    fmt::print(stderr, "hkcheck: mutate needs a device (the host backend serves): {}\n", why);
    return kExitNothingChecked;
  }
  base.backend = dev->backend;
  const std::string vendor = s.source_vendor.empty() ? vendor_of_arch(dev->arch) : s.source_vendor;
  use_compile_target(sel->loaded.kernels, run_target(dev->backend, dev->arch, vendor));
  if (s.tier == "auto") s.tier = dev->backend == "host" ? "small" : "all";
  if (s.report.out_dir.empty()) s.report.out_dir = "results/mutation";
  const RunInfo info = run_info(s.argv, sel->loaded.errors);
  MutationReport report;
  report.hkcheck_version = info.hkcheck_version, report.git_commit = info.git_commit, report.started_at = info.started_at;
  report.command = s.argv, report.device = dev, report.host_profile = dev->backend == "host" ? s.host.profile : "";
  report.seed = s.seed, report.budget_s = s.mutate.budget_s, report.max_mutants = s.mutate.max_mutants;
  const std::string scratch = s.report.out_dir + "/scratch";
  const Clock::time_point t0 = Clock::now();
  KernelMutator mutate(s, base, scratch, t0);
  bool unreadable = false;
  for (const KernelSpec* k : sel->selection.kernels) {
    if (interrupt_signal()) break;
    if (!serves_vendor(*k, vendor) || (dev->backend == "host" && !k->gpu_only.empty())) continue;
    fmt::print(stderr, "hkcheck: mutate {}\n", k->name);
    KernelMutation rec;
    try {
      unreadable |= !mutate(*k, cases_to_run(*k, s.tier), rec);
    } catch (const std::exception& e) {
      rec.skipped = e.what();
    }
    fmt::print(stderr, "hkcheck: {}: {} killed, {} survived, {} discarded of {} mutants ({} made), {:.0f} s{}\n", k->name,
               rec.count(MutantOutcome::KILLED), rec.count(MutantOutcome::SURVIVED), rec.count(MutantOutcome::DISCARDED), rec.mutants.size(),
               rec.candidates, rec.seconds, rec.skipped.empty() ? "" : "; " + rec.skipped);
    report.kernels.push_back(std::move(rec));
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  report.budget_exhausted = mutate.budget_ran_out();
  report.wall_s = seconds_since(t0);
  if (!write_report(report, s.report.out_dir)) return kExitUsage;
  fmt::print(stderr, "hkcheck: mutation report in {}/mutation_report.md\n", s.report.out_dir);
  if (interrupt_signal()) return 128 + interrupt_signal();
  if (unreadable || !sel->loaded.errors.empty()) return kExitUsage;
  for (const KernelMutation& k : report.kernels)
    if (k.count(MutantOutcome::SURVIVED)) return kExitFailed;
  return kExitOk;
}

}  // namespace hk
