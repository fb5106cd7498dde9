// hkcheck: proves GPU kernels right. See README.md; `hkcheck --help` lists the options.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <thread>
#include <unistd.h>

#include "case_filter.h"
#include "compile_only.h"
#include "merge_command.h"
#include "shard.h"
#include "diff_command.h"
#include "exit_codes.h"
#include "run_environment.h"
#include "compile_worker.h"
#include "git_commit.h"
#include "interrupt.h"
#include "out_lock.h"
#include "project.h"
#include "journal.h"
#include "report.h"
#include "report_junit.h"
#include "file_util.h"
#include "repro.h"
#include "runner.h"
#include "host_profile.h"
#include "results_diff.h"
#include "sanitize.h"
#include "seed_sweep.h"
#include "selection.h"
#include "slug.h"
#include "worker.h"

namespace {

namespace fs = std::filesystem;
using namespace hk;

// --resume: settings not given on the command line come from the journal's header; one given
// that differs from it is refused, since the finished cases were run with the header's.
template <class T>
bool take_from_journal(const CLI::App& app, const std::string& option, const nlohmann::json& header, const std::string& field,
                       T& value, const std::string& journal) {
  const T recorded = header.at(field).get<T>();
  if (app.count(option) > 0 && value != recorded) {
    fmt::print(stderr, "hkcheck: {}: the run being resumed used {} {}, not {}; resume with the same settings or start a new run\n",
               journal, option, nlohmann::json(recorded).dump(), nlohmann::json(value).dump());
    return false;
  }
  value = recorded;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Modes with their own command lines: hkcheck diff A B, hkcheck merge OUT DIR...
  if (argc > 1 && std::string(argv[1]) == "diff") return diff_main(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "merge") return merge_main(argc - 1, argv + 1);
  CLI::App app{"hkcheck: compiles GPU kernels at run time, runs the cases in worker processes, and compares the\n"
               "outputs with CPU references. Verdicts: PASS FAIL CRASH TIMEOUT SKIP COMPILE_ERROR ERROR FLAKY LEAK NOT_RUN,\n"
               "and XFAIL / XPASS for cases whose manifest declares the verdict they are known to reach.\n"
               "Exit code: 0 nothing failed (skips and XFAIL allowed), 1 a case did not pass, 2 usage or manifest error,\n"
               "3 nothing was checked (every case skipped; --diff: no case in common),\n"
               "130 / 143 interrupted by SIGINT / SIGTERM (the reports are written; --resume finishes the run)."};
  std::vector<std::string> patterns;
  bool compile_only = false, compile_worker = false;
  std::vector<std::string> archs;
  bool all = false, list = false, worker = false, no_cache = false, version = false, no_repro = false;
  std::string junit_path;
  std::string out_dir, root_dir, manifest_dir, backend = "auto", cache_dir = default_cache_dir(), tier = "auto", resume_dir, worker_exe;
  HostOptions host;
  double timeout = 30;
  uint64_t seed = 0;
  int device = 0, protocol_fd = 3, repeat = 1, jobs = 0, cpu_threads = 1;
  std::vector<int> devices;
  std::string isolation = "worker";
  app.add_option("kernels", patterns,
                 "Kernel names or shell globs (e.g. rmsnorm 'activation*'), or kernel/case globs ('rmsnorm/*f16*'); none means all");
  std::vector<std::string> case_patterns, excludes;
  std::string last_failed;
  bool exit_first = false;
  app.add_option("-k", case_patterns,
                 "Run only the cases whose id, kernel/case, matches: a glob when it has * ? or [, else a substring (repeat: any)");
  app.add_option("--exclude", excludes, "Leave out the cases whose id kernel/case matches, as -k matches (repeat: any)");
  app.add_option("--last-failed", last_failed,
                 "Run only the cases that did not pass (not PASS, SKIP or XFAIL) in an earlier run: its folder or test_results.json");
  bool time = false;
  int time_launches = 20;
  app.add_flag("--time", time,
               "Time each passing case: device events around --time-launches launches after two warm-up ones; results get "
               "the median, min, max and the GB/s of the bytes its tensors move");
  app.add_option("--time-launches", time_launches, "Launches --time times per case")->capture_default_str()->check(CLI::Range(1, 10000));
  std::string shard_text, shard_durations;
  app.add_option("--shard", shard_text,
                 "Run part K of N of the selected cases (e.g. 2/4), balanced by cost; `hkcheck merge OUT DIR...` joins the parts");
  app.add_option("--shard-durations", shard_durations, "Balance --shard by the case times of an earlier run (its folder or results file)");
  app.add_flag("-x,--exitfirst", exit_first, "Start no new case after the first that did not pass (the rest are NOT_RUN)");
  app.add_flag("--all", all, "Run every kernel in the manifests (the default when no name is given)");
  app.add_flag("--list", list, "List kernels and their cases without running anything");
  app.add_option("--out", out_dir, "Folder for test_results.json and .md (default: results/<device>)");
  app.add_option("--root", root_dir,
                 "Kernel project folder holding manifests/, kernels/, references/ (default: the current folder when it holds manifests/)");
  app.add_option("--manifests", manifest_dir, "Folder of manifests (default: manifests/ of the project)");
  app.add_option("--timeout", timeout, "Seconds allowed per case before it is killed (TIMEOUT)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& text) {
            const double s = std::strtod(text.c_str(), nullptr);
            return s > 0 && s <= kMaxTimeoutSeconds ? std::string() : fmt::format("expected seconds, more than 0 and at most {:g}", kMaxTimeoutSeconds);
          },
          "SECONDS"));
  app.add_option("--repeat", repeat, "Launch every case N times on the same inputs; outputs that differ make it FLAKY")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  std::string seeds_text;
  auto* seed_opt = app.add_option("--seed", seed, "Seed of the input generators")->capture_default_str();
  app.add_option("--seeds", seeds_text,
                 "Run every case once per seed: A..B (both included), a list A,B,C, or both (0..4,9); each copy is named "
                 "'<case> seed=N' and the markdown names cases that fail for some seeds only")
      ->excludes(seed_opt);
  auto* device_opt = app.add_option("--device", device, "GPU index")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--devices", devices, "GPU indices to spread the cases over, e.g. --devices 0,1 (one pool of --jobs workers each)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::NonNegativeNumber)
      ->excludes(device_opt);
  app.add_option("--jobs", jobs, "Workers per GPU running cases at once (0: cores / (2 x GPUs), at least 2, at most 8)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  app.add_option("--isolation", isolation,
                 "worker: a worker process runs many cases, and a case that fails after others is rerun alone (LEAK when "
                 "its verdict changes); case: a fresh worker process for every case (slower, nothing shared)")
      ->capture_default_str()
      ->check(CLI::IsMember({"worker", "case"}));
  app.add_option("--backend", backend, "auto, cuda, hip or host (auto: the first GPU backend that finds a device, else host: the CPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "hip", "host"}));
  app.add_option("--host-profile", host.profile,
                 "Device limits the host backend declares (shared memory, block size, warp size): " + host_profile_names())
      ->capture_default_str()
      ->check(CLI::IsMember([] {
        std::vector<std::string> names;
        for (const auto& p : host_profiles()) names.push_back(p.name);
        return names;
      }()));
  app.add_option("--host-threads", host.threads, "OS threads the host backend runs blocks on (0: one per core)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--tier", tier, "Which size tiers to run: small, all, or auto (all on a GPU, small on the host backend)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "small", "all"}));
  app.add_option("--cache-dir", cache_dir, "Where compiled kernels are cached between processes")->capture_default_str();
  app.add_flag("--no-cache", no_cache, "Compile every case afresh");
  app.add_option("--resume", resume_dir, "Finish an interrupted run: run only the cases with no result in DIR/results.jsonl")
      ->check(CLI::ExistingDirectory);
  std::string sanitize_text;
  app.add_flag("--sanitize{failures}", sanitize_text,
               "After the run, rerun the FAIL, CRASH and FLAKY cases (XFAIL ones too) under compute-sanitizer memcheck and "
               "racecheck and attach the reports; --sanitize=TOOL[,TOOL] (memcheck racecheck synccheck initcheck) runs every "
               "case under those tools, and a reported error fails a case that passed. CUDA only");
  bool md_every_case = false;
  app.add_flag("--md-every-case", md_every_case,
               "List every case in test_results.md (by default it lists the cases that did not pass and stays under 60,000 "
               "characters, to fit a pull-request comment)");
  app.add_flag("--no-repro", no_repro, "Write no repro folders for the cases that did not pass");
  app.add_option("--junit", junit_path, "Also write the results as JUnit XML to this file (for CI test reports)");
  app.add_flag("--version", version, "Print the version and exit");
  std::vector<std::string> diff_files;
  app.add_option("--diff", diff_files,
                 "Compare two runs (folders or test_results.json), exit 1 when a case run by both changed its verdict; "
                 "`hkcheck diff A B` has more (--fail-on, --md, --json)")
      ->expected(2);
  app.add_flag("--compile-only", compile_only,
               "Compile every selected kernel, in each configuration its cases produce, for each --arch, with no device; "
               "nothing runs (a PASS says it compiled)");
  app.add_option("--arch", archs, "Target of --compile-only: sm_80, sm_90, sm_100, gfx90a, ... (repeat or separate with commas)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_flag("--compile-worker", compile_worker, "Internal: run as a compile worker")->group("");
  app.add_flag("--worker", worker, "Internal: run as a worker process")->group("");
  app.add_option("--protocol-fd", protocol_fd, "Internal: the worker's protocol descriptor")->group("");
  app.add_option("--worker-exe", worker_exe, "Internal: the program started as the worker (tests)")->group("");
  app.add_option("--cpu-threads", cpu_threads, "Internal: threads a worker spreads a case's big loops over")->group("")->check(CLI::Range(1, 1024));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version-like exits are 0; every usage error is the documented 2.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (no_cache) cache_dir.clear();

  std::optional<SanitizePlan> sanitize;
  try {
    if (!sanitize_text.empty()) sanitize = parse_sanitize(sanitize_text);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "hkcheck: --sanitize: {}\n", e.what());
    return kExitUsage;
  }

  if (version) {
    fmt::print("hkcheck {} ({})\n", HKCHECK_VERSION, git_commit());
    return kExitOk;
  }
  if (!diff_files.empty()) return diff_command(DiffOptions{diff_files[0], diff_files[1], "change", "", ""});
  if (worker) return run_worker(WorkerOptions{backend, device, protocol_fd, cache_dir, host, cpu_threads});
  if (compile_worker) return run_compile_worker(CompileWorkerOptions{backend, archs.empty() ? "" : archs.front(), protocol_fd, host});
  if (compile_only != !archs.empty()) {
    fmt::print(stderr, "hkcheck: --compile-only needs at least one --arch, and --arch is only for --compile-only\n");
    return kExitUsage;
  }
  for (const std::string& a : archs)
    if (backend_for_arch(a).empty()) {
      fmt::print(stderr, "hkcheck: --arch {}: not a target hkcheck compiles for (sm_XX for NVIDIA, gfxXXX for AMD)\n", a);
      return kExitUsage;
    }
  if (all && !patterns.empty()) {
    fmt::print(stderr, "hkcheck: give --all or kernel names, not both\n");
    return kExitUsage;
  }
  install_interrupt_handlers();

  const auto t0 = std::chrono::steady_clock::now();
  const std::string exe = self_exe(argv[0]);

  // --resume DIR: the finished cases and the run's settings come from DIR's journal.
  JournalContents journaled;
  std::error_code ec;
  const std::string journal_path = (resume_dir.empty() ? std::string() : resume_dir + "/") + kJournalName;
  if (!resume_dir.empty()) {
    try {
      journaled = read_journal(journal_path);
    } catch (const JournalError& e) {
      fmt::print(stderr, "hkcheck: --resume: {}\n", e.what());
      return kExitUsage;
    }
    if (journaled.dropped_partial_line) fmt::print(stderr, "hkcheck: {}: its last line was cut short and is ignored\n", journal_path);
    for (int line : journaled.damaged_lines)
      fmt::print(stderr, "hkcheck: {}:{}: not a whole JSON line (a torn write); ignored, so its case runs again\n", journal_path, line);
    const nlohmann::json& h = journaled.header;
    std::string recorded_backend = h.value("backend", "auto");
    if (recorded_backend == "none") recorded_backend = backend;  // no device then: any now
    nlohmann::json header_backend = h;
    header_backend["backend"] = recorded_backend;
    nlohmann::json manifests_header = h;  // the same folder however it is spelled
    if (app.count("--manifests") > 0 && h.contains("manifests") &&
        fs::weakly_canonical(manifest_dir, ec) == fs::weakly_canonical(h["manifests"].get<std::string>(), ec))
      manifests_header["manifests"] = manifest_dir;
    if (app.count("--out") > 0 && fs::weakly_canonical(out_dir) != fs::weakly_canonical(resume_dir)) {
      fmt::print(stderr, "hkcheck: --resume writes into the folder it resumes ({}); leave out --out\n", resume_dir);
      return kExitUsage;
    }
    out_dir = resume_dir;
    try {
      if (!take_from_journal(app, "--seed", h, "seed", seed, journal_path) ||
          (h.contains("seeds") && !take_from_journal(app, "--seeds", h, "seeds", seeds_text, journal_path)) ||
          !take_from_journal(app, "--manifests", manifests_header, "manifests", manifest_dir, journal_path) ||
          !take_from_journal(app, "--backend", header_backend, "backend", backend, journal_path) ||
          !take_from_journal(app, "--device", h, "device_index", device, journal_path) ||
          (h.contains("host_profile") && !take_from_journal(app, "--host-profile", h, "host_profile", host.profile, journal_path)) ||
          (h.contains("repeat") && !take_from_journal(app, "--repeat", h, "repeat", repeat, journal_path)) ||
          (h.contains("tier") && !take_from_journal(app, "--tier", h, "tier", tier, journal_path)))
        return kExitUsage;
      if ((!patterns.empty() || all) && patterns != h.at("kernels").get<std::vector<std::string>>()) {
        fmt::print(stderr, "hkcheck: {}: the run being resumed selected {}, not {}; resume with the same selection or start a new run\n",
                   journal_path, h.at("kernels").dump(), nlohmann::json(patterns).dump());
        return kExitUsage;
      }
      patterns = h.at("kernels").get<std::vector<std::string>>();
      if (app.count("--timeout") == 0) timeout = h.at("timeout").get<double>();
    } catch (const nlohmann::json::exception& e) {
      fmt::print(stderr, "hkcheck: {}:1: bad run header: {}\n", journal_path, e.what());
      return kExitUsage;
    }
  }

  const ProjectPaths project = find_project(root_dir, manifest_dir, exe);
  manifest_dir = project.manifests;
  if (!fs::is_directory(manifest_dir)) {
    fmt::print(stderr, "hkcheck: manifest folder '{}' not found (run in a project folder that holds manifests/, or pass --root or --manifests)\n",
               manifest_dir);
    return kExitUsage;
  }

  // Load and validate every manifest; a broken one is reported and the rest still run.
  LoadedManifests loaded = load_manifests(manifest_dir);
  const ReferenceIndex reference_index = find_references(loaded, project);
  std::vector<KernelSpec>& kernels = loaded.kernels;
  std::vector<std::string>& manifest_errors = loaded.errors;
  std::vector<std::string>& failed_kernels = loaded.failed_kernels;
  for (const auto& e : manifest_errors) fmt::print(stderr, "hkcheck: manifest error: {}\n", e);
  std::vector<uint64_t> seeds;
  try {
    if (!seeds_text.empty()) seeds = parse_seed_list(seeds_text);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "hkcheck: --seeds: {}\n", e.what());
    return kExitUsage;
  }
  if (!seeds.empty())
    for (KernelSpec& k : kernels) sweep_seeds(k, seeds);

  // kernel/case patterns select their kernels and filter their cases, like -k.
  std::vector<std::string> kernel_patterns, id_patterns;
  for (const std::string& p : patterns) {
    kernel_patterns.push_back(p.substr(0, p.find('/')));
    if (p.find('/') != std::string::npos) id_patterns.push_back(p);
  }
  CaseFilter filter{id_patterns, case_patterns, excludes, std::nullopt};
  try {
    if (!last_failed.empty()) filter.only = ids_not_passed(last_failed);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "hkcheck: --last-failed: {}\n", e.what());
    return kExitUsage;
  }
  for (KernelSpec& k : kernels) filter_cases(k, filter);
  Selection sel = select_kernels(kernels, kernel_patterns);
  if (!shard_text.empty()) {
    try {
      const ShardSpec shard = parse_shard(shard_text);
      const auto durations = shard_durations.empty() ? std::map<std::string, double>{} : recorded_durations(shard_durations);
      filter.only = shard_ids(sel.kernels, shard, durations);
    } catch (const std::exception& e) {
      fmt::print(stderr, "hkcheck: --shard: {}\n", e.what());
      return kExitUsage;
    }
    for (KernelSpec& k : kernels) filter_cases(k, CaseFilter{{}, {}, {}, filter.only});
  }
  if (filter.active()) std::erase_if(sel.kernels, [](const KernelSpec* k) { return k->cases.empty(); });
  for (const auto& e : sel.errors) fmt::print(stderr, "hkcheck: {}\n", e);
  if (!sel.errors.empty()) return kExitUsage;

  if (list) {
    for (const KernelSpec* k : sel.kernels) {
      fmt::print("{}  ({} cases; {} -> {}, reference {})\n", k->name, k->cases.size(), k->manifest, k->source, k->reference);
      for (const CaseSpec& c : k->cases) fmt::print("  {}\n", c.name);
    }
    return manifest_errors.empty() ? kExitOk : kExitUsage;
  }

  if (compile_only) {
    const RunInfo info = run_info(argc, argv, manifest_errors);
    const int jobs_now = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int rc = compile_only_command(sel.kernels, CompileOnlyOptions{worker_exe.empty() ? exe : worker_exe, archs, jobs_now, timeout, host}, info,
                                        out_dir.empty() ? "results/compile-only" : out_dir);
    return rc != kExitOk ? rc : manifest_errors.empty() ? kExitOk : kExitUsage;
  }

  if (devices.empty()) devices = {device};
  if (jobs == 0) jobs = default_jobs(devices.size());
  RunOptions ropt{worker_exe.empty() ? exe : worker_exe, backend, devices.front(), timeout, 120, seed, cache_dir,
                  {"--host-profile", host.profile, "--host-threads", std::to_string(host.threads), "--cpu-threads",
                   std::to_string(worker_cpu_threads())},
                  repeat};
  ropt.isolation = isolation == "case" ? Isolation::case_alone : Isolation::worker;
  ropt.references = build_references(sel.kernels, reference_index, cache_dir, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  ropt.jobs = jobs;
  ropt.exit_first = exit_first;
  ropt.time_launches = time ? time_launches : 0;
  ropt.devices = devices;
  Runner runner(ropt);
  RunInfo run = run_info(argc, argv, manifest_errors);
  run.seed = seed;
  run.seeds = seeds;
  run.markdown_every_case = md_every_case;
  if (!resume_dir.empty()) run.resumed_from = journal_path;

  std::string why;
  auto dev = runner.probe(&why);
  // Every device of --devices must open and be the same kind of GPU: the results name one.
  for (size_t i = 1; dev && i < devices.size(); ++i) {
    std::string why_other;
    const auto other = runner.probe(&why_other, devices[i]);
    if (!other || other->name != dev->name || other->arch != dev->arch) {
      fmt::print(stderr, "hkcheck: --devices: device {} {}; device {} is {} ({})\n", devices[i],
                 other ? fmt::format("is {} ({})", other->name, other->arch) : "cannot be used: " + why_other, devices.front(), dev->name,
                 dev->arch);
      return kExitUsage;
    }
  }
  size_t total = 0;
  for (const KernelSpec* k : sel.kernels) total += k->cases.size();
  if (dev) {
    run.backend = dev->backend;
    run.device = *dev;
    if (dev->backend == "host")
      fmt::print(stderr, "hkcheck: host backend: kernels run on the CPU with the limits of the {} profile ({}), {}{}\n",
                 host.profile, dev->arch, dev->runtime_version, dev->note.empty() ? "" : "; " + dev->note);
    fmt::print(stderr, "hkcheck: {} on {} ({}, {}), {} cases, {} worker(s) on {} device(s), isolation {}\n", dev->backend, dev->name,
               dev->arch, dev->runtime_version, total, jobs * devices.size(), devices.size(), isolation);
  } else {
    run.backend = "none";
    if (!interrupt_signal()) fmt::print(stderr, "hkcheck: no usable GPU: {}\nhkcheck: every case is SKIP (NO_DEVICE)\n", why);
  }
  if (out_dir.empty()) out_dir = "results/" + (dev ? device_slug(dev->name) : std::string("no-device"));
  if (tier == "auto") tier = dev && dev->backend == "host" ? "small" : "all";
  run.tier = tier;

  // Finished cases of the run being resumed; a later line for a case replaces an earlier one.
  std::map<std::pair<std::string, std::string>, CaseResult> finished;
  if (!resume_dir.empty()) {
    const std::string was = journaled.header.value("device_name", "");
    if (dev && !was.empty() && (dev->name != was || dev->backend != journaled.header.value("backend", ""))) {
      fmt::print(stderr, "hkcheck: {}: the run being resumed ran on {} ({}), this one would run on {} ({}); start a new run\n",
                 journal_path, was, journaled.header.value("backend", ""), dev->name, dev->backend);
      return kExitUsage;
    }
    for (CaseResult& r : journaled.results) finished[{r.kernel, r.case_name}] = std::move(r);
  }

  std::unique_ptr<JournalWriter> journal;
  fs::create_directories(out_dir, ec);
  OutDirLock out_lock;
  if (std::string busy; !out_lock.acquire(out_dir, &busy)) {
    fmt::print(stderr, "hkcheck: {}\n", busy);
    return kExitUsage;
  }
  try {
    const nlohmann::json header = {{"type", "run"},
                                   {"schema", "hkcheck-journal"},
                                   {"schema_version", kJournalVersion},
                                   {"hkcheck_version", HKCHECK_VERSION},
                                   {"git_commit", git_commit()},
                                   {"started_at", run.started_at},
                                   {"seed", seed},
                                   {"seeds", seeds_text},
                                   {"backend", run.backend},
                                   {"device_name", dev ? nlohmann::json(dev->name) : nlohmann::json("")},
                                   {"device_index", devices.front()},
                                   {"devices", devices},
                                   {"isolation", isolation},
                                   {"kernels", patterns},
                                   {"case_filter", {{"k", case_patterns}, {"exclude", excludes}, {"last_failed", last_failed}}},
                                   {"manifests", fs::absolute(manifest_dir).lexically_normal().string()},
                                   {"timeout", timeout},
                                   {"host_profile", host.profile},
                                   {"repeat", repeat},
                                   {"tier", tier}};
    journal = std::make_unique<JournalWriter>(out_dir + "/" + kJournalName, header, !resume_dir.empty());
  } catch (const JournalError& e) {
    fmt::print(stderr, "hkcheck: {}\n", e.what());
    return kExitUsage;
  }
  auto journal_append = [&](const CaseResult& r) {
    try {
      journal->append(r);
    } catch (const JournalError& e) {
      fmt::print(stderr, "hkcheck: {} (the run goes on; --resume would run this case again)\n", e.what());
    }
  };

  const ReproSettings repro{seed, run.backend, dev ? dev->arch : "", exe};
  std::vector<CaseResult> results;
  std::vector<CaseOrigin> origin;  // of each result, for --sanitize
  std::vector<CaseTask> tasks;
  std::vector<size_t> task_slot;  // where each task's result goes in results
  size_t done = 0, reused = 0;
  // Prints a finished case and journals it (repro folder first, so the journal names it).
  auto record = [&](CaseResult& r, const KernelSpec& k, const CaseSpec& c) {
    ++done;
    if (r.status == Status::NOT_RUN || !dev) return;
    // An expected failure (XFAIL) still failed underneath: it gets its repro like any other.
    if (!status_ok(r.actual_status.value_or(r.status)) && !no_repro) {
      const std::string repro_rel = repro_subdir(k.name, c.name);
      try {
        write_repro(fs::absolute(fs::path(out_dir) / repro_rel).lexically_normal().string(), k, c, repro);
        r.repro = repro_rel;
      } catch (const std::exception& e) {
        r.notes.push_back(std::string("could not write the repro folder: ") + e.what());
      }
    }
    journal_append(r);
    fmt::print(stderr, "[{:>4}/{}] {:<28} {:<40} {:<13} {:6.2f} s{}\n", done, total, k.name, c.name, status_name(r.status),
               r.timings.wall_ms / 1000, r.status == Status::PASS ? "" : "  " + verdict_note(r).substr(0, 160));
  };
  for (const KernelSpec* k : sel.kernels) {
    for (const CaseSpec& c : k->cases) {
      origin.emplace_back(k, &c);
      if (const auto it = finished.find({k->name, c.name}); it != finished.end()) {
        results.push_back(it->second);
        ++done, ++reused;
        continue;
      }
      CaseResult r;
      if (dev && !(tier == "small" && c.tier != "small") && !interrupt_signal()) {
        const std::string repro_abs = fs::absolute(fs::path(out_dir) / repro_subdir(k->name, c.name)).lexically_normal().string();
        fs::remove_all(repro_abs, ec);  // an earlier run's repro of this case is stale
        tasks.push_back(CaseTask{k, &c, no_repro ? "" : repro_abs});
        task_slot.push_back(results.size());
        results.emplace_back();
        continue;
      }
      if (interrupt_signal()) {
        r = blank_result(*k, c, Status::NOT_RUN);
        r.message = "not started: the run was interrupted by " + signal_label(interrupt_signal());
      } else if (dev) {
        r = blank_result(*k, c, Status::SKIP);
        r.reason = "TIER";
        r.message = fmt::format("a {} case; this run takes the {} tier (--tier all runs it)", c.tier, tier);
      } else {
        r = blank_result(*k, c, Status::SKIP);
        r.reason = "NO_DEVICE", r.message = why;
      }
      record(r, *k, c);
      results.push_back(std::move(r));
    }
  }
  runner.run_all(tasks, [&](size_t i, CaseResult r) {
    record(r, *tasks[i].kernel, *tasks[i].c);
    results[task_slot[i]] = std::move(r);
  });
  if (reused) fmt::print(stderr, "hkcheck: {} cases kept from {}\n", reused, journal_path);

  if (sanitize && dev && !interrupt_signal())
    run.sanitizer = sanitize_results(*sanitize, runner.options(), dev->backend, dev->arch, out_dir, results, origin, journal_append);

  for (const auto& name : failed_kernels) {
    if (!patterns.empty() && select_kernels({KernelSpec{name}}, patterns).kernels.empty()) continue;
    CaseResult r;
    r.kernel = name;
    r.case_name = "(manifest)";
    r.status = Status::ERROR;
    r.message = "not run: its manifest entry has errors (see manifest_errors)";
    results.push_back(std::move(r));
  }

  const int sig = interrupt_signal();
  if (sig) run.interrupted = signal_label(sig);
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string err;
  if (!write_reports(out_dir, run, results, &err) ||
      (!junit_path.empty() && !write_file_atomic(junit_path, results_junit(run, results), &err))) {
    fmt::print(stderr, "hkcheck: cannot write the reports: {}\n", err);
    return kExitUsage;
  }
  const Counts c = count_results(results);
  fmt::print(stderr, "hkcheck: {} in {:.1f} s\n", counts_line(c), run.wall_s);
  fmt::print(stderr, "hkcheck: wrote {0}/test_results.json and {0}/test_results.md\n", out_dir);
  if (sig) {
    fmt::print(stderr, "hkcheck: interrupted by {}; `hkcheck --resume {}` runs the {} cases left\n", run.interrupted, out_dir, c.not_run);
    return 128 + sig;
  }
  if (!manifest_errors.empty()) return kExitUsage;
  const bool failed = std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return !status_ok(r.status); });
  if (failed) return kExitFailed;
  if (c.total == c.skip) {
    fmt::print(stderr, "hkcheck: no case reached a verdict ({}): nothing was checked\n", c.total ? "all were skipped" : "none was selected");
    return kExitNothingChecked;
  }
  return kExitOk;
}
