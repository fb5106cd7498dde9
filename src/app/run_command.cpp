#include "app/run_command.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <thread>

#include "select/case_filter.h"
#include "run/case_fingerprint.h"
#include "app/cli/resume.h"
#include "app/cli/run_spec_settings.h"
#include "app/cli/selected_cases.h"
#include "app/compile_only.h"
#include "model/compile_target.h"
#include "model/exit_codes.h"
#include "util/file_util.h"
#include "process/interrupt.h"
#include "run/journal.h"
#include "report/last_run.h"
#include "report/results_owner.h"
#include "run/out_lock.h"
#include "report/reporters.h"
#include "model/results_folder.h"
#include "run/repro.h"
#include "run/run_environment.h"
#include "run/runner.h"
#include "run/case_durations.h"
#include "select/case_schedule.h"
#include "run/sanitize.h"
#include "util/slug.h"
#include "platform/backend_table.h"
#include "model/status.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using CaseKey = std::pair<std::string, std::string>;  // kernel, case

// Absolute: the paths a compile cache key names count relative to it in any worker.
std::string absolute_project_folder(const SelectedCases& sel) { return fs::absolute(project_folder(sel.project)).lexically_normal().string(); }

}  // namespace

RunOptions runner_options(const Settings& s, const SelectedCases& sel) {
  RunOptions o{s.worker_exe.empty() ? s.self_exe : s.worker_exe, s.backend, s.devices.front(), s.timeout, 120, s.seed, s.cache_dir,
               {"--host-profile", s.host.profile, "--host-threads", std::to_string(s.host.threads), "--cpu-threads",
                std::to_string(worker_cpu_threads())},
               s.repeat};
  if (s.host.races) o.worker_args.push_back("--races");
  o.project_root = absolute_project_folder(sel);
  o.isolation = s.isolation == "case" ? Isolation::case_alone : Isolation::worker;
  o.references = ReferenceLibraries::start(sel.selection.kernels, sel.references,
                                  {s.cache_dir, "", static_cast<int>(std::max(1u, std::thread::hardware_concurrency())), s.compile_timeout,
                                   o.project_root, resolve_memory_limit(s.memory_limit, 1)});
  o.setup_timeout_s = s.compile_timeout;
  o.jobs = s.jobs;
  o.reference_cache = !s.no_ref_cache;
  o.max_fail = s.exit_first ? 1 : s.max_fail;
  o.time_launches = s.time ? s.time_launches : 0;
  o.devices = s.devices;
  o.memory_limit = resolve_memory_limit(s.memory_limit, s.jobs * static_cast<int>(s.devices.size()));
  o.compile_ahead = compile_ahead_processes(s.jobs * static_cast<int>(s.devices.size()));
  // Nobody stops a run without a terminal on purpose: its host workers resume it (parent_watch.h).
  if (!has_terminal()) o.worker_args.push_back("--resume-stopped-parent");
  return o;
}

namespace {

// Opens the first device; every other of --devices must be the same kind of GPU, since the
// results name one. False (printed) when they differ.
bool probe_devices(Runner& runner, const Settings& s, std::optional<DeviceInfo>* dev, std::string* why) {
  *dev = runner.probe(why);
  for (size_t i = 1; *dev && i < s.devices.size(); ++i) {
    std::string why_other;
    const auto other = runner.probe(&why_other, s.devices[i]);
    if (!other || other->name != (*dev)->name || other->arch != (*dev)->arch) {
      fmt::print(stderr, "hkcheck: --devices: device {} {}; device {} is {} ({})\n", s.devices[i],
                 other ? fmt::format("is {} ({})", other->name, other->arch) : "cannot be used: " + why_other, s.devices.front(),
                 (*dev)->name, (*dev)->arch);
      return false;
    }
  }
  return true;
}

void announce(const Settings& s, const std::optional<DeviceInfo>& dev, const std::string& why, size_t total) {
  if (!dev) {
    if (!interrupt_signal()) fmt::print(stderr, "hkcheck: no usable GPU: {}\nhkcheck: every case is SKIP (NO_DEVICE)\n", why);
    return;
  }
  if (on_cpu(dev->backend))
    fmt::print(stderr, "hkcheck: host backend: kernels run on the CPU with the limits of the {} profile ({}), {}{}\n", s.host.profile,
               dev->arch, dev->runtime_version, dev->note.empty() ? "" : "; " + dev->note);
  fmt::print(stderr, "hkcheck: {} on {} ({}, {}), {} cases, {} worker(s) on {} device(s), isolation {}\n", dev->backend, dev->name,
             dev->arch, dev->runtime_version, total, s.jobs * s.devices.size(), s.devices.size(), s.isolation);
}

JournalHeader journal_header(const RunInfo& run, const SelectedCases& sel) {
  JournalHeader h{run.hkcheck_version, run.git_commit, run.started_at, run.spec, run.device, {}};
  for (const KernelSpec* k : sel.selection.kernels)
    for (const CaseSpec& c : k->cases) h.cases.push_back(case_id(k->name, c.name));
  return h;
}

// A journaled result worth keeping: a case that was never run, or skipped for want of a device,
// runs again.
bool finished(const CaseResult& r) { return r.status != Status::NOT_RUN && !(r.status == Status::SKIP && has_reason(r.reason, Reason::NO_DEVICE)); }

// A case that is not given to a worker: kept from the resumed run, or SKIP / NOT_RUN here.
CaseResult not_started(const KernelSpec& k, const CaseSpec& c, const Settings& s, const std::optional<CompileTarget>& target,
                       const std::string& why) {
  CaseResult r;
  const bool have_device = target.has_value();
  if (interrupt_signal()) {
    r = blank_result(k, c, Status::NOT_RUN);
    r.message = interrupted_message("not started");
  } else if (have_device && !serves_vendor(k, target->vendor)) {
    r = blank_result(k, c, Status::SKIP);
    r.reason = reason_name(Reason::NOT_FOR_VENDOR), r.message = not_for_vendor_message(k, *target);
  } else if (have_device) {
    r = blank_result(k, c, Status::SKIP);
    r.reason = reason_name(Reason::TIER);
    r.message = fmt::format("a {} case; this run takes the {} tier (--tier all runs it)", c.tier, s.tier);
  } else {
    r = blank_result(k, c, Status::SKIP);
    r.reason = reason_name(Reason::NO_DEVICE), r.message = why;
  }
  return r;
}

// False (printed) when --out is the manifests folder or inside it.
bool out_folder_allowed(const Settings& s) {
  const std::string problem = results_folder_problem(s.report.out_dir, s.manifest_dir);
  if (!problem.empty()) fmt::print(stderr, "hkcheck: {}\n", problem);
  return problem.empty();
}

// The kernels left out for manifest errors, as ERROR rows (when the selection names them).
void add_manifest_failures(const Settings& s, const SelectedCases& sel, std::vector<CaseResult>& results) {
  for (const auto& name : sel.loaded.failed_kernels) {
    KernelSpec named;
    named.name = name;
    if (!s.select.patterns.empty() && select_kernels({named}, s.select.patterns).kernels.empty()) continue;
    CaseResult r;
    r.kernel = name;
    r.case_name = "(manifest)";
    r.status = Status::ERROR;
    const auto error = sel.loaded.error_of.find(name);
    r.message = "not run: its manifest entry has an error: " + (error == sel.loaded.error_of.end() ? std::string("see run.manifest_errors") : error->second);
    results.push_back(std::move(r));
  }
}

// "k1, k2, k3 and 12 more kernels": what the first workers compile while nothing has finished.
std::string first_kernels(const std::vector<CaseTask>& tasks) {
  std::vector<std::string> names;
  for (const CaseTask& t : tasks)
    if (names.empty() || names.back() != t.kernel->name) names.push_back(t.kernel->name);
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(3, names.size()); ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += fmt::format(" and {} more kernels", names.size() - 3);
  return out;
}

// Said before the references are built and the device is probed, which take seconds: the first
// output comes at once.
void announce_selection(const Settings& s, const SelectedCases& sel) {
  if (s.report.verbosity < 0) return;
  std::set<std::string> references;
  for (const KernelSpec* k : sel.selection.kernels) references.insert(k->reference);
  fmt::print(stderr, "hkcheck: {} cases of {} kernels selected from {}; loading {} references and starting the workers\n", sel.case_count(),
             sel.selection.kernels.size(), s.manifest_dir, references.size());
}

// One run, from the selection to the reports.
class Run {
 public:
  Run(Settings& s, SelectedCases& sel, const JournalContents& resumed, std::string journal_path)
      : s_(s), sel_(sel), runner_(runner_options(s, sel)), journal_path_(std::move(journal_path)), total_(sel.case_count()) {
    for (const JournaledCase& j : resumed.cases)  // a later line replaces an earlier one
      if (finished(j.result)) finished_[{j.result.kernel, j.result.case_name}] = j;
  }

  int operator()(const JournalContents& resumed) {
    info_ = run_info(s_.argv, sel_.loaded.errors);
    info_.spec = spec_from_settings(s_, sel_.seeds, sel_.project.references);
    info_.markdown_every_case = s_.report.markdown_every_case;
    if (!s_.resume_dir.empty()) info_.resumed_from = journal_path_;
    runner_.start_workers(sel_.selection.kernels.size());  // their contexts are made while the device is probed and the cases planned
    if (!probe_devices(runner_, s_, &dev_, &why_)) return kExitUsage;
    if (s_.report.verbosity >= 0) announce(s_, dev_, why_, total_);
    info_.spec.backend = dev_ ? dev_->backend : "none";
    // A port and its original under one entry: the device's vendor's file, unless --source says;
    // and the defines and options of the device's target (docs/manifest.md, "Per-target settings").
    if (dev_) {
      info_.spec.source_vendor = s_.source_vendor.empty() ? vendor_of_arch(dev_->arch) : s_.source_vendor;
      target_ = run_target(dev_->backend, dev_->arch, info_.spec.source_vendor);
      use_compile_target(sel_.loaded.kernels, *target_);
    }
    info_.device = dev_;
    if (s_.report.out_dir.empty()) s_.report.out_dir = "results/" + (dev_ ? device_slug(dev_->name) : std::string("no-device"));
    if (!out_folder_allowed(s_) || !may_replace_results()) return kExitUsage;
    if (s_.tier == "auto") s_.tier = dev_ && on_cpu(dev_->backend) ? "small" : "all";
    info_.spec.tier = s_.tier;
    reporters_ = std::make_unique<Reporters>(s_.report, s_.report.out_dir, ConsoleStyle{"hkcheck", "", false, s_.report.verbosity, s_.report.durations});
    if (!s_.resume_dir.empty() && !same_device_as(resumed)) return kExitUsage;
    if (!open_journal()) return kExitUsage;
    execute();
    return finish();
  }

 private:
  bool same_device_as(const JournalContents& resumed) const {
    const std::optional<DeviceInfo>& was = resumed.header.device;
    if (!dev_ || !was || (dev_->name == was->name && dev_->backend == was->backend)) return true;
    fmt::print(stderr, "hkcheck: {}: the run being resumed ran on {} ({}), this one would run on {} ({}); start a new run\n", journal_path_,
               was->name, was->backend, dev_->name, dev_->backend);
    return false;
  }

  // The folder's results are another device's, backend's or mode's: refused unless --force (a
  // resumed run continues its own folder).
  bool may_replace_results() {
    if (!s_.resume_dir.empty() || s_.report.force) return true;
    was_ = results_owner(s_.report.out_dir);
    const std::string problem = replace_problem(s_.report.out_dir, was_, owner_of(info_));
    if (!problem.empty()) fmt::print(stderr, "hkcheck: {}\n", problem);
    return problem.empty();
  }

  // A run that checked nothing leaves results that did in place: its reports go beside them.
  void keep_checked_results(const Counts& c) {
    if (c.judged() > 0 || !was_ || !was_->checked) return;
    const std::string beside = nothing_checked_folder(s_.report.out_dir);
    reporters_->files_go_to(beside);
    fmt::print(stderr, "hkcheck: nothing was checked, so {} keeps the results of the run started {}; this run's reports are in {}\n",
               s_.report.out_dir, was_->started_at, beside);
  }

  // What a bare --last-failed reads next (last_run.h): this run's folder, once it checked something.
  void remember_run() const {
    if (std::string err; !record_last_run(absolute_project_folder(sel_), s_.report.out_dir, &err))
      fmt::print(stderr, "hkcheck: note: the project keeps no last run for --last-failed: {}\n", err);
  }

  bool open_journal() {
    std::error_code ec;
    fs::create_directories(s_.report.out_dir, ec);
    if (std::string busy; !out_lock_.acquire(s_.report.out_dir, &busy)) {
      fmt::print(stderr, "hkcheck: {}\n", busy);
      return false;
    }
    try {
      journal_ = std::make_unique<JournalWriter>(s_.report.out_dir + "/" + kJournalName, journal_header(info_, sel_), !s_.resume_dir.empty());
    } catch (const JournalError& e) {
      fmt::print(stderr, "hkcheck: {}\n", e.what());
      return false;
    }
    return true;
  }

  void journal_append(const CaseResult& r) {
    try {
      journal_->append(JournaledCase{plan_of_[case_id(r.kernel, r.case_name)], r});
    } catch (const JournalError& e) {
      fmt::print(stderr, "hkcheck: {} (the run goes on; --resume would run this case again)\n", e.what());
    }
  }

  std::string repro_abs(const KernelSpec& k, const CaseSpec& c) const {
    return fs::absolute(fs::path(s_.report.out_dir) / repro_subdir(k.name, c.name)).lexically_normal().string();
  }

  // Removes a case's repro folder, following no symbolic link inside the results folder (one in
  // the way is removed, and said).
  void clear_repro(const KernelSpec& k, const CaseSpec& c) {
    std::string err;
    std::vector<std::string> replaced;
    if (!remove_inside(s_.report.out_dir, repro_subdir(k.name, c.name), &err, &replaced)) fmt::print(stderr, "hkcheck: {}\n", err);
    for (const std::string& r : replaced) fmt::print(stderr, "hkcheck: {}\n", r);
  }

  // Prints a finished case and journals it (repro folder first, so the journal names it). An
  // expected failure (XFAIL) still failed underneath: it gets its repro like any other.
  void record(CaseResult& r, const KernelSpec& k, const CaseSpec& c) {
    ++done_;
    if (r.status == Status::NOT_RUN || !dev_) return;
    if (!status_ok(r.actual_status.value_or(r.status)) && !s_.report.no_repro) {
      try {
        const auto ref = sel_.references.file_of.find(k.reference);
        write_repro(repro_abs(k, c), k, c,
                    ReproSettings{info_.spec, dev_ ? dev_->arch : "", s_.self_exe, ref == sel_.references.file_of.end() ? "" : ref->second});
        r.repro = repro_subdir(k.name, c.name);
      } catch (const std::exception& e) {
        r.notes.push_back(std::string("could not write the repro folder: ") + e.what());
      }
    }
    journal_append(r);
    reporters_->case_finished(r, done_, total_);
  }

  void execute() {
    std::vector<CaseTask> tasks;
    std::vector<size_t> task_slot;  // where each task's result goes in results_
    size_t reused = 0;
    std::vector<std::string> changed;
    for (const KernelSpec* k : sel_.selection.kernels) {
      for (const CaseSpec& c : k->cases) {
        origin_.emplace_back(k, &c);
        const std::string& plan = plan_of_[case_id(k->name, c.name)] = fingerprint(*k, c);
        const auto it = finished_.find({k->name, c.name});
        if (it != finished_.end() && it->second.plan != plan) changed.push_back(case_id(k->name, c.name));
        if (it != finished_.end() && it->second.plan == plan) {
          results_.push_back(it->second.result);
          ++done_, ++reused;
        } else if (dev_ && !(s_.tier == "small" && c.tier != "small") && serves_vendor(*k, target_->vendor) && !interrupt_signal()) {
          clear_repro(*k, c);  // an earlier run's repro of this case is stale
          tasks.push_back(CaseTask{k, &c, s_.report.no_repro ? "" : repro_abs(*k, c)});
          task_slot.push_back(results_.size());
          results_.emplace_back();
        } else {
          CaseResult r = not_started(*k, c, s_, target_, why_);
          record(r, *k, c);
          results_.push_back(std::move(r));
        }
      }
    }
    if (!tasks.empty() && s_.report.verbosity >= 0) fmt::print(stderr, "hkcheck: compiling and running {}\n", first_kernels(tasks));
    std::vector<ScheduledCase> scheduled;
    for (const CaseTask& t : tasks) scheduled.push_back({t.kernel, t.c});
    const std::vector<double> expected = expected_costs(scheduled, load_case_durations(s_.cache_dir).wall_ms);
    for (size_t i = 0; i < tasks.size(); ++i) tasks[i].expected_ms = expected[i];
    CaseDurations took;
    runner_.run_all(tasks, [&](size_t i, CaseResult r) {
      if (r.status != Status::NOT_RUN) took.wall_ms[case_id(r.kernel, r.case_name)] = expected_next_ms(r.timings, !s_.no_ref_cache);
      if (r.timings.reference_cached) ++references_cached_;
      record(r, *tasks[i].kernel, *tasks[i].c);
      results_[task_slot[i]] = std::move(r);
    });
    std::string err;
    if (!s_.cache_dir.empty() && !took.wall_ms.empty() && !save_case_durations(s_.cache_dir, took, &err))
      fmt::print(stderr, "hkcheck: could not keep the cases' durations for the next run's order: {}\n", err);
    if (const auto& ahead = runner_.compiled_ahead(); ahead && ahead->processes > 0 && s_.report.verbosity >= 0)
      fmt::print(stderr, "hkcheck: {} of {} kernel configuration(s) compiled ahead of the workers by {} process(es); the workers compiled the "
                 "rest (HKCHECK_COMPILE_AHEAD=0: none ahead)\n", ahead->made, ahead->jobs, ahead->processes);
    if (references_cached_)
      fmt::print(stderr, "hkcheck: {} of {} case(s) read their reference's outputs from the cache (--no-ref-cache computes them)\n",
                 references_cached_, tasks.size());
    if (!changed.empty())
      fmt::print(stderr, "hkcheck: {}: {} case(s) changed since their result (manifest entry, kernel source or headers, reference, or "
                 "seed), e.g. {}: they run again\n", journal_path_, changed.size(), changed.front());
    if (reused) fmt::print(stderr, "hkcheck: {} cases kept from {}\n", reused, journal_path_);
  }

  std::string fingerprint(const KernelSpec& k, const CaseSpec& c) const {
    const auto ref = sel_.references.file_of.find(k.reference);
    return case_fingerprint(k, c, s_.seed, s_.repeat, ref == sel_.references.file_of.end() ? "" : ref->second, absolute_project_folder(sel_));
  }

  int finish() {
    if (!s_.sanitize.empty() && dev_ && !interrupt_signal())
      info_.sanitizer = sanitize_results(parse_sanitize(s_.sanitize), runner_.options(), dev_->backend, dev_->arch, s_.report.out_dir,
                                         results_, origin_, [&](const CaseResult& r) { journal_append(r); });
    add_manifest_failures(s_, sel_, results_);
    const int sig = interrupt_signal();
    if (sig) info_.interrupted = signal_label(sig);
    info_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const Counts c = count_results(results_);
    keep_checked_results(c);
    std::string err;
    if (!reporters_->run_finished(info_, results_, &err)) {
      fmt::print(stderr, "hkcheck: cannot write the reports: {}\n", err);
      return kExitUsage;
    }
    if (c.judged() > 0) remember_run();
    if (sig) {
      fmt::print(stderr, "hkcheck: interrupted by {}; `hkcheck --resume {}` runs the {} cases left\n", info_.interrupted,
                 s_.report.out_dir, c[Status::NOT_RUN]);
      return 128 + sig;
    }
    if (!sel_.loaded.errors.empty()) return kExitUsage;
    const int rc = verdicts_exit_code(c);
    if (rc == kExitNothingChecked)
      fmt::print(stderr, "hkcheck: no case reached a verdict ({}): nothing was checked\n", c.total ? "all were skipped" : "none was selected");
    return rc;
  }

  Settings& s_;
  SelectedCases& sel_;
  Runner runner_;
  std::string journal_path_;
  size_t total_, done_ = 0;
  size_t references_cached_ = 0;  // cases whose reference outputs came from the cache
  const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  RunInfo info_;
  std::optional<DeviceInfo> dev_;
  std::optional<ResultsOwner> was_;  // whose results the out folder held before this run
  std::optional<CompileTarget> target_;  // the device's, once there is one
  std::string why_;
  std::map<CaseKey, JournaledCase> finished_;  // kept from the journal of a resumed run
  std::map<std::string, std::string> plan_of_;  // case id -> its fingerprint (case_fingerprint.h)
  OutDirLock out_lock_;
  std::unique_ptr<JournalWriter> journal_;
  std::unique_ptr<Reporters> reporters_;  // once the out folder is known
  std::vector<CaseResult> results_;
  std::vector<CaseOrigin> origin_;  // of each result, for --sanitize
};

}  // namespace

int run_command(Settings& s) {
  if (!s.sanitize.empty()) {
    try {
      parse_sanitize(s.sanitize);
    } catch (const std::invalid_argument& e) {
      fmt::print(stderr, "hkcheck: --sanitize: {}\n", e.what());
      return kExitUsage;
    }
  }
  install_interrupt_handlers();
  ignore_stops_from_processes();
  JournalContents resumed;
  std::string journal_path;
  if (!s.resume_dir.empty() && !resume_settings(s, &resumed, &journal_path)) return kExitUsage;
  auto sel = select_cases(s, s.resume_dir.empty() ? nullptr : &resumed.header.cases);
  if (!sel) return kExitUsage;
  if (sel->last_run_green) {
    fmt::print(stderr, "hkcheck: --last-failed: no failed cases in the last run ({}); nothing to run\n", s.select.last_failed);
    return kExitOk;
  }
  // A selection that names nothing (a -k typo) checks nothing: it writes nowhere, so the last
  // results and what --last-failed reads of them stay as they were.
  if (sel->case_count() == 0 && sel->loaded.errors.empty() && s.resume_dir.empty()) {
    fmt::print(stderr, "hkcheck: no case selected from {}: nothing run and nothing written{}\n", s.manifest_dir,
               s.report.out_dir.empty() ? "" : "; " + s.report.out_dir + " keeps its results");
    return kExitNothingChecked;
  }
  if (s.devices.empty()) s.devices = {s.device};
  if (s.jobs == 0) s.jobs = default_jobs(s.devices.size());
  announce_selection(s, *sel);
  return Run(s, *sel, resumed, journal_path)(resumed);
}

int list_command(Settings& s) {
  auto sel = select_cases(s);
  if (!sel) return kExitUsage;
  for (const KernelSpec* k : sel->selection.kernels) {
    fmt::print("{}  ({} cases; {} -> {}, reference {})\n", k->name, k->cases.size(), k->manifest, k->source, k->reference);
    for (const CaseSpec& c : k->cases) fmt::print("  {}\n", c.name);
  }
  if (!sel->loaded.errors.empty()) return kExitUsage;
  if (sel->case_count() == 0) fmt::print(stderr, "hkcheck: no case selected\n");
  return sel->case_count() == 0 ? kExitNothingChecked : kExitOk;
}

int compile_only_mode(Settings& s) {
  auto sel = select_cases(s);
  if (!sel || (!s.report.out_dir.empty() && !out_folder_allowed(s))) return kExitUsage;
  const std::string out = s.report.out_dir.empty() ? kCompileOnlyFolder : s.report.out_dir;
  if (const std::string problem = replace_problem(out, s.report.force ? std::nullopt : results_owner(out), ResultsOwner{"compile-only", "", "", false});
      !problem.empty()) {
    fmt::print(stderr, "hkcheck: {}\n", problem);
    return kExitUsage;
  }
  const int jobs = s.jobs > 0 ? s.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (s.report.verbosity >= 0)
    fmt::print(stderr, "hkcheck: compile only: {} kernels ({} cases) for {}, {} compile workers\n", sel->selection.kernels.size(),
               sel->case_count(), fmt::join(s.archs, ", "), jobs);
  RunInfo info = run_info(s.argv, sel->loaded.errors);
  info.spec = spec_from_settings(s, sel->seeds, sel->project.references);
  install_interrupt_handlers();  // Ctrl-C stops the compiles and still writes the reports, as a run does
  const int rc = compile_only_command(sel->selection.kernels,
                                      CompileOnlyOptions{s.worker_exe.empty() ? s.self_exe : s.worker_exe, s.archs, jobs, s.compile_timeout, s.host, s.hiprtc_root,
                                                         s.cache_dir, absolute_project_folder(*sel)},
                                      info, s.report);
  return rc != kExitOk ? rc : sel->loaded.errors.empty() ? kExitOk : kExitUsage;
}

}  // namespace hk
