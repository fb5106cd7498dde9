#include "app/cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <fmt/format.h>

#include "app/cli/option_defaults.h"
#include "util/close_match.h"
#include "app/compile_only.h"
#include "model/exit_codes.h"
#include "run/git_commit.h"
#include "platform/host_profile.h"
#include "report/last_run.h"
#include "model/manifest.h"
#include "select/project.h"
#include "process/private_folder.h"
#include "refs/reference_cache.h"
#include "run/run_environment.h"
#include "model/status.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

std::string description() {
  std::string verdicts;
  for (const StatusInfo& i : status_table()) verdicts += fmt::format("  {:<14}{}\n", i.name, i.meaning);
  return "hkcheck: compiles GPU kernels at run time, runs the cases in worker processes, and compares the\n"
         "outputs with CPU references.\n\n"
         "Modes: hkcheck [run] (the default), hkcheck list (or --list), hkcheck compile-only (or --compile-only),\n"
         "hkcheck mutate [kernels] (mutants of the kernels' sources, docs/mutate.md),\n"
         "hkcheck diff A B, hkcheck merge OUT PART...; `hkcheck diff --help` and `hkcheck merge --help` tell more.\n\n"
         "Verdicts:\n" +
         verdicts +
         "\nExit code: 0 nothing failed (skips and XFAIL allowed), 1 a case did not pass, 2 usage or manifest error,\n"
         "3 nothing was checked (every case skipped or none selected; --diff: no case in common),\n"
         "130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP (the reports are written; --resume finishes the run).";
}

CLI::Validator timeout_check() {
  return CLI::Validator(
      [](const std::string& text) {
        const double s = std::strtod(text.c_str(), nullptr);
        return s > 0 && s <= kMaxTimeoutSeconds ? std::string() : fmt::format("expected seconds, more than 0 and at most {:g}", kMaxTimeoutSeconds);
      },
      "SECONDS");
}

void add_selection(CLI::App& app, SelectionSettings& s) {
  app.add_option("kernels", s.patterns,
                 "Kernel names or shell globs (e.g. rmsnorm 'gelu*'), or kernel/case globs ('rmsnorm/*f16*'); none means all");
  // One pattern per -k / --exclude: `-k M=7 rmsnorm` must leave rmsnorm to the kernel names.
  app.add_option("-k", s.case_patterns,
                 "Run only the cases whose id, kernel/case, matches: a glob when it has * ? or [, else a substring (repeat: any)")
      ->allow_extra_args(false);
  app.add_option("--exclude", s.excludes, "Leave out the cases whose id kernel/case matches, as -k matches (repeat: any)")
      ->allow_extra_args(false);
  app.add_option("--last-failed,--lf", s.last_failed,
                 "Run only the cases that did not pass (not PASS, SKIP or XFAIL) in an earlier run: its folder or test_results.json, "
                 "or with none the project's last run that checked something (.hkcheck/last-run.json)")
      ->expected(0, 1);
  app.add_flag("--allow-outside-root", s.allow_outside_root,
               "Take kernel and reference sources outside the project's repository (its git work tree, else its folder), which are "
               "refused by default: a manifest could otherwise have any file of the machine read, copied and quoted into the results");
  app.add_option("--shard", s.shard,
                 "Run part K of N of the selected cases (e.g. 2/4), balanced by cost; `hkcheck merge OUT DIR...` joins the parts");
  app.add_option("--shard-durations", s.shard_durations, "Balance --shard by the case times of an earlier run (its folder or results file)");
  app.add_flag("--all", s.all, "Run every kernel in the manifests (the default when no name is given)");
}

bool is_mode_word(const std::string& w) { return w == "run" || w == "list" || w == "compile-only" || w == "mutate"; }

// "did you mean --timeout?" for each option the command line does not know.
void suggest_options(const CLI::App& app, std::ostream& err) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  for (const std::string& word : app.remaining()) {
    if (word.rfind("--", 0) != 0) continue;
    const std::string bare = word.substr(0, word.find('='));
    if (const std::string best = closest_match(bare, names, 4); !best.empty())
      err << "hkcheck: unknown option " << bare << " (did you mean " << best << "?)\n";
  }
}

// --last-failed takes a folder or file when given one: a word that names no file and has no '/'
// is a kernel pattern after a bare --last-failed (`--lf rmsnorm`).
void take_last_failed_word(SelectionSettings& s) {
  std::error_code ec;
  const std::string& word = s.last_failed;
  const bool a_path = word.find('/') != std::string::npos || word.size() > 5 && word.substr(word.size() - 5) == ".json" || std::filesystem::exists(word, ec);
  if (!word.empty() && !a_path) s.patterns.insert(s.patterns.begin(), word);
  if (word.empty() || !a_path) s.last_failed = kLastRunSentinel;
}

void add_reports(CLI::App& app, ReportSettings& r) {
  app.add_option("--out", r.out_dir, "Folder for test_results.json and .md (default: results/<device>)");
  app.add_flag("--force", r.force, "Replace the results in --out even when another device, backend or mode wrote them");
  app.add_option("--junit,--junitxml", r.junit_path, "Also write the results as JUnit XML to this file (for CI test reports; --junitxml as pytest spells it)");
  app.add_flag("--md-every-case", r.markdown_every_case,
               "List every case in test_results.md (by default it lists the cases that did not pass and stays under 60,000 "
               "characters, to fit a pull-request comment)");
  app.add_flag("--no-repro", r.no_repro, "Write no repro folders for the cases that did not pass");
  auto* quiet = app.add_flag_callback("-q,--quiet", [&r] { r.verbosity = -1; }, "Print only the summary and the reports written");
  app.add_flag_callback("-v,--verbose", [&r] { r.verbosity = 1; },
                        "One line per case even on a terminal (where the default is one status line rewritten in place), and "
                        "every case that did not pass in the closing list")
      ->excludes(quiet);
  app.add_option("--durations", r.durations, "After the run, list the N slowest cases")->check(CLI::NonNegativeNumber);
}

void add_device(CLI::App& app, Settings& s) {
  auto* device_opt = app.add_option("--device", s.device, "GPU index")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--devices", s.devices, "GPU indices to spread the cases over, e.g. --devices 0,1 (one pool of --jobs workers each)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::NonNegativeNumber)
      ->excludes(device_opt);
  app.add_option("--jobs", s.jobs, "Workers per GPU running cases at once (0: cores / (2 x GPUs), at least 2, at most 8)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  std::vector<std::string> backends = {"auto"}, source_vendors;
  for (const BackendRow& r : backend_table()) {
    backends.push_back(r.name);
    if (*r.source_vendor) source_vendors.push_back(r.source_vendor);
  }
  app.add_option("--backend", s.backend,
                 fmt::format("auto or one of {} (auto: the first GPU backend that finds a device, else {}: the CPU)", backend_name_list(),
                             host_backend().name))
      ->capture_default_str()
      ->check(CLI::IsMember(backends));
  std::vector<std::string> profiles;
  for (const auto& p : host_profiles()) profiles.push_back(p.name);
  app.add_option("--host-profile", s.host.profile,
                 "Device limits the host backend declares (shared memory, block size, warp size): " + host_profile_names())
      ->capture_default_str()
      ->check(CLI::IsMember(profiles));
  app.add_option("--source", s.source_vendor,
                 "For kernels with a file per vendor (\"source\": {\"cuda\": ..., \"hip\": ...}): which to run. Default: the "
                 "device's vendor (hip for AMD GPUs and the AMD host profiles mi325x and mi355x, cuda otherwise)")
      ->check(CLI::IsMember(source_vendors));
  app.add_option("--host-threads", s.host.threads, "OS threads the host backend runs blocks on (0: one per core)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--races", s.host.races,
               "Host backend only: run every case under hkcheck's happens-before race detector (global and shared memory, "
               "within and across blocks); a race is a FAIL naming both accesses (docs/host_backend.md)");
}

void add_run(CLI::App& app, Settings& s) {
  app.add_option("--root", s.root_dir,
                 "Kernel project folder holding manifests/, kernels/, references/ (default: the current folder when it holds manifests/)");
  app.add_option("--manifests", s.manifest_dir, "Folder of manifests (default: manifests/ of the project)");
  app.add_option("--timeout", s.timeout,
                 "Seconds a case's kernel may run, from its first launch, before it is killed (TIMEOUT); a manifest's per-kernel "
                 "\"timeout\" overrides it. --time's launches have as long again of their own")
      ->capture_default_str()
      ->check(timeout_check());
  app.add_option("--compile-timeout", s.compile_timeout,
                 "Seconds a compile may take (each kernel file, each reference library, --compile-only's), and each case's other "
                 "parts: its inputs before the kernel runs, its reference after (an ERROR, never a TIMEOUT of the kernel)")
      ->capture_default_str()
      ->check(timeout_check());
  app.add_option_function<std::string>(
         "--memory-limit",
         [&s](const std::string& text) {
           try {
             s.memory_limit = parse_memory_limit(text);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError("--memory-limit", e.what());
           }
         },
         "Memory the processes of one worker may hold (4G, 512M; 0 or none: no limit); over it, the case is a CRASH "
         "(MEMORY_LIMIT). Default auto: the machine's memory divided among the workers running at once, at least 2 GiB")
      ->default_str("auto");
  app.add_option("--repeat", s.repeat, "Launch every case N times on the same inputs; outputs that differ make it FLAKY")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  // A uint64_t takes "-1" as 2^64-1: a negative seed is refused, not wrapped.
  auto* seed_opt = app.add_option("--seed", s.seed, "Seed of the input generators")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--seeds", s.seeds,
                 "Run every case once per seed: A..B (both included), a list A,B,C, or both (0..4,9); each copy is named "
                 "'<case> seed=N' and the markdown names cases that fail for some seeds only")
      ->excludes(seed_opt);
  app.add_option("--isolation", s.isolation,
                 "worker: a worker process runs many cases, and a case that fails after others is rerun alone (LEAK when "
                 "its verdict changes); case: a fresh worker process for every case (slower, nothing shared)")
      ->capture_default_str()
      ->check(CLI::IsMember({"worker", "case"}));
  app.add_option("--tier", s.tier, "Which size tiers to run: small, all, or auto (all on a GPU, small on the host backend)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "small", "all"}));
  app.add_option("--cache-dir", s.cache_dir, "Where compiled kernels are cached between processes")->capture_default_str();
  app.add_option("--resume", s.resume_dir, "Finish an interrupted run: run only the cases with no result in DIR/results.jsonl")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--no-ref-cache", s.no_ref_cache,
               fmt::format("Compute every reference instead of reading its outputs back from the cache (--cache-dir; bounded by "
                           "HKCHECK_REF_CACHE_MB, default {})",
                           kDefaultReferenceCacheBytes >> 20));
  app.add_flag("--strict", s.strict,
               "Make the manifests' style rules errors: a tolerance looser than its dtype's default without \"why\" leaves its "
               "kernel out (by default it is a warning and the kernel runs). hkcheck's own corpus runs with it "
               "(\"strict\": true in its hkcheck.json)");
  app.add_flag("-x,--exitfirst", s.exit_first, "Start no new case after the first that did not pass (the rest are NOT_RUN)");
  app.add_option("--maxfail", s.max_fail, "Start no new case after N cases did not pass (the rest are NOT_RUN); -x is --maxfail 1")
      ->check(CLI::Range(1, 1000000));
  app.add_option("-a,--axis", s.axes,
                 "Replace a sweep's values of parameter NAME in every kernel that sweeps it: NAME=V or NAME=[V1,V2] (repeat "
                 "for more parameters), e.g. -a N=[128,256]")
      ->allow_extra_args(false);
  app.add_flag("--time", s.time,
               "Time each passing case: device events around --time-launches launches after two warm-up ones; results get "
               "the median, min, max and the GB/s of the bytes its tensors move");
  app.add_option("--time-launches", s.time_launches, "Launches --time times per case")->capture_default_str()->check(CLI::Range(1, 10000));
  app.add_flag("--sanitize{failures}", s.sanitize,
               "After the run, rerun the FAIL, CRASH and FLAKY cases (XFAIL ones too) under compute-sanitizer memcheck and "
               "racecheck and attach the reports; --sanitize=TOOL[,TOOL] (memcheck racecheck synccheck initcheck) runs every "
               "case under those tools, and a reported error fails a case that passed. CUDA only");
  app.add_option("--arch", s.archs, "Target of --compile-only: sm_80, sm_90, sm_100, gfx90a, ... (repeat or separate with commas)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--hiprtc-root", s.hiprtc_root,
                 "The hipRTC --compile-only compiles gfx targets with: a folder .ci/fetch-hiprtc filled (its compile workers "
                 "run under that folder's own loader), or `system` for this system's library search. Default: "
                 "$HKCHECK_HIPRTC_ROOT, else ~/.cache/hkcheck/hiprtc when it holds versions.txt, else system. A --backend hip "
                 "run compiles with the HIP runtime's own hipRTC, the one matching it")
      ->type_name("DIR");
}

void add_mutate(CLI::App& app, MutateSettings& m) {
  app.add_option("--budget", m.budget_s, "mutate: start no mutant after this many seconds (0: no bound)")
      ->check(CLI::NonNegativeNumber)
      ->type_name("SECONDS");
  app.add_option("--max-mutants", m.max_mutants, "mutate: at most N mutants per kernel, chosen by --seed (0: every one)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--parallel", m.parallel,
                 "mutate: mutants run at once, each with --jobs x GPUs / N workers, at least 1 (0: --jobs x GPUs mutants, one "
                 "worker each); the report is the same whatever N")
      ->check(CLI::Range(0, 1024));
  app.add_option("--save-mutants", m.save_mutants,
                 "mutate: write every selected kernel's mutants to FILE and run nothing (for a machine without libclang)")
      ->type_name("FILE");
  app.add_option("--mutants", m.mutants_from,
                 "mutate: run the mutants of FILE (from --save-mutants) instead of making them; libclang is not needed")
      ->type_name("FILE");
}

// The modes chosen by a flag (or by the same word first on the command line).
void add_mode_flags(CLI::App& app, Settings& s, bool& list, bool& compile_only, bool& worker, bool& compile_worker, bool& version) {
  app.add_flag("--list,--collect-only", list, "List kernels and their cases without running anything (--collect-only as pytest spells it)");
  app.add_flag("--compile-only", compile_only,
               "Compile every selected kernel, in each configuration its cases produce, for each --arch, with no device; "
               "nothing runs (a PASS says it compiled)");
  app.add_option("--diff", s.diff_files,
                 "Compare two runs (folders or test_results.json), exit 1 when a case run by both changed its verdict; "
                 "`hkcheck diff A B` has more (--fail-on, --md, --json)")
      ->expected(2);
  app.add_flag("--version", version, "Print the version and exit");
  app.add_flag("--compile-worker", compile_worker, "Internal: run as a compile worker")->group("");
  app.add_flag("--worker", worker, "Internal: run as a worker process")->group("");
  app.add_option("--protocol-fd", s.protocol_fd, "Internal: the worker's protocol descriptor")->group("");
  app.add_option("--worker-exe", s.worker_exe, "Internal: the program started as the worker (tests)")->group("");
  app.add_option("--project-root", s.project_root, "Internal: the folder compile cache keys name paths relative to")->group("");
  app.add_flag("--yield-cpu", s.yield_cpu, "Internal: a compile worker gives the CPU to every other process of the run first")->group("");
  app.add_flag("--resume-stopped-parent", s.resume_stopped_parent, "Internal: a worker resumes its stopped parent")->group("");
  app.add_option("--cpu-threads", s.cpu_threads, "Internal: threads a worker spreads a case's big loops over")->group("")->check(CLI::Range(1, 1024));
}

// Rules between options that CLI11 cannot state.
std::optional<std::string> cross_check(const Settings& s) {
  if (s.mode == ModeName::compile_only && s.archs.empty()) return "compile-only needs at least one --arch";
  if (s.mode != ModeName::compile_only && s.mode != ModeName::compile_worker && !s.archs.empty())
    return "--arch is only for --compile-only";
  if (s.mode != ModeName::compile_only && s.mode != ModeName::compile_worker && !s.hiprtc_root.empty())
    return "--hiprtc-root is only for --compile-only (a --backend hip run compiles with the HIP runtime's own hipRTC)";
  for (const std::string& a : s.archs)
    if (!backend_for_arch(a)) return fmt::format("--arch {}: not a target hkcheck compiles for (sm_XX for NVIDIA, gfxXXX for AMD)", a);
  if (s.select.all && !s.select.patterns.empty()) return "give --all or kernel names, not both";
  if (s.mode != ModeName::mutate && (s.was_given("--budget") || s.was_given("--max-mutants") || s.was_given("--parallel") ||
                                     s.was_given("--save-mutants") || s.was_given("--mutants")))
    return "--budget, --max-mutants, --parallel, --save-mutants and --mutants are for `hkcheck mutate`";
  if (s.was_given("--save-mutants") && s.was_given("--mutants")) return "give --save-mutants or --mutants, not both";
  if (s.host.races && find_backend(s.backend) && !on_cpu(s.backend))
    return fmt::format("--races runs on the host backend only (--backend host); on a GPU, --sanitize=racecheck checks shared memory "
                       "(--backend {} was given)",
                       s.backend);
  return std::nullopt;
}

ModeName mode_of(const std::string& word, bool list, bool compile_only, bool worker, bool compile_worker, bool diff) {
  if (worker) return ModeName::worker;
  if (compile_worker) return ModeName::compile_worker;
  if (diff) return ModeName::diff_legacy;
  if (compile_only || word == "compile-only") return ModeName::compile_only;
  if (list || word == "list") return ModeName::list;
  if (word == "mutate") return ModeName::mutate;
  return ModeName::run;
}

}  // namespace

namespace {

// One parse of args (args[0] is the program). app_out: the parser, for the option names.
// errors: where a usage error is written (std::cerr when none).
std::optional<int> parse_once(std::vector<std::string> args, Settings& s, std::set<std::string>* option_names,
                               std::ostream* errors = nullptr) {
  s.self_exe = self_exe(args[0].c_str());
  s.cache_dir = default_cache_dir();
  // A mode word first ("hkcheck list ...") is the same as its flag.
  std::string word;
  if (args.size() > 1 && is_mode_word(args[1])) {
    word = args[1];
    args.erase(args.begin() + 1);
  }
  CLI::App app{description()};
  bool list = false, compile_only = false, worker = false, compile_worker = false, version = false, no_cache = false;
  add_selection(app, s.select);
  add_reports(app, s.report);
  add_device(app, s);
  add_run(app, s);
  add_mutate(app, s.mutate);
  app.add_flag("--no-cache", no_cache, "Compile every case afresh");
  add_mode_flags(app, s, list, compile_only, worker, compile_worker, version);
  app.footer("Defaults: HKCHECK_BACKEND, HKCHECK_JOBS, HKCHECK_OUT, HKCHECK_SEED, HKCHECK_TIER, HKCHECK_TIMEOUT, then the \"defaults\" "
             "object of hkcheck.json at the project root (README.md, \"Configuration\"); the command line wins.");
  for (const CLI::Option* o : app.get_options())
    if (!o->get_group().empty() && o->get_name().rfind("--", 0) == 0) option_names->insert(o->get_name());
  for (const char* own : {"--help", "--version", "--root", "--resume", "--manifests", "--list", "--compile-only", "--diff"})
    option_names->erase(own);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every usage error is the documented 2.
    std::ostream& err = errors ? *errors : std::cerr;
    const int rc = app.exit(e, std::cout, err);
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) suggest_options(app, err);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (version) {
    fmt::print("hkcheck {} ({})\n", HKCHECK_VERSION, git_commit());
    return kExitOk;
  }
  // A mode's word anywhere among the kernels (`hkcheck --backend host list`, `hkcheck rmsnorm
  // list`), as pytest takes --collect-only anywhere.
  if (const auto w = std::find_if(s.select.patterns.begin(), s.select.patterns.end(), is_mode_word); word.empty() && w != s.select.patterns.end()) {
    word = *w;
    s.select.patterns.erase(w);
  }
  for (const CLI::Option* o : app.get_options())
    if (o->count() > 0) s.given.insert(o->get_name());
  if (app.get_option("--last-failed")->count() > 0) take_last_failed_word(s.select);
  if (no_cache) s.cache_dir.clear();
  s.host.cache_dir = s.cache_dir;
  s.mode = mode_of(word, list, compile_only, worker, compile_worker, !s.diff_files.empty());
  return std::nullopt;
}

// hkcheck.json of the project the command line names or the current folder is in.
std::string config_file_of(const Settings& s) {
  return (std::filesystem::path(project_folder(find_project(s.root_dir, s.manifest_dir, s.self_exe))) / kConfigFileName).string();
}

// The first line of the command line's refusal of args (argv[0] first), or nothing when it takes
// them; with cross, what cross_check refuses of them too.
std::optional<std::string> refusal_of(const std::vector<std::string>& args, std::set<std::string>* option_names, bool cross) {
  Settings scratch;
  std::ostringstream why;
  if (parse_once(args, scratch, option_names, &why) != kExitUsage) return cross ? cross_check(scratch) : std::nullopt;
  std::string text = why.str();
  if (const size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

// After a command line with the environment's defaults was refused: the HKCHECK_* variable whose
// value alone is refused, named with its value and the reason (the option's name alone would send
// the user looking at a command line that does not hold it); "" when none alone is.
std::string refused_variable(const std::vector<std::string>& args, const std::set<std::string>& given, std::set<std::string>* option_names) {
  for (const std::string& name : environment_options()) {
    const std::string option = "--" + name, variable = environment_variable(name);
    const char* value = std::getenv(variable.c_str());
    if (!value || given.count(option)) continue;
    std::vector<std::string> with = args;
    with.insert(with.end(), {option, value});
    if (const auto why = refusal_of(with, option_names, false)) return fmt::format("{}={}: {}", variable, value, *why);
  }
  return "";
}

}  // namespace

std::optional<std::string> refused_by_command_line(const std::vector<std::string>& options) {
  std::vector<std::string> args = {"hkcheck"};
  args.insert(args.end(), options.begin(), options.end());
  std::set<std::string> names;
  return refusal_of(args, &names, true);
}

std::optional<int> parse_command_line(int argc, char** argv, Settings& s) {
  const std::vector<std::string> args(argv, argv + argc);
  std::set<std::string> option_names;
  if (const auto exit_now = parse_once(args, s, &option_names)) return exit_now;
  // The environment's and the project file's defaults, for what the command line left out; the
  // internal worker modes take only their command line.
  if (s.mode != ModeName::worker && s.mode != ModeName::compile_worker) {
    std::string err;
    const auto extra = default_arguments(s.given, config_file_of(s), [&](const std::string& o) { return option_names.count(o) > 0; }, &err);
    if (!extra) {
      fmt::print(stderr, "hkcheck: {}\n", err);
      return kExitUsage;
    }
    if (!extra->empty()) {
      std::vector<std::string> with = args;
      with.insert(with.end(), extra->begin(), extra->end());
      const std::set<std::string> given = s.given;  // what --resume may take as an override: the command line's
      s = Settings{};
      std::ostringstream why;
      if (const auto exit_now = parse_once(with, s, &option_names, &why)) {
        const std::string variable = refused_variable(args, given, &option_names);
        fmt::print(stderr, "{}", variable.empty() ? why.str() : "hkcheck: " + variable + " (from the environment)\n");
        return exit_now;
      }
      s.given = given;
    }
  }
  s.argv = args;
  if (const auto problem = cross_check(s)) {
    fmt::print(stderr, "hkcheck: {}\n", *problem);
    return kExitUsage;
  }
  // Compiled code is read back from the cache and run: it must be this user's alone. One that
  // cannot be made (a read-only home) only costs time: the run goes on without it.
  if (!s.cache_dir.empty() && (s.mode == ModeName::run || s.mode == ModeName::compile_only || s.mode == ModeName::mutate)) {
    try {
      ensure_private_folder(s.cache_dir, "--cache-dir");
    } catch (const UntrustedFolder& e) {
      fmt::print(stderr, "hkcheck: {}\n", e.what());
      return kExitUsage;
    } catch (const std::exception& e) {
      fmt::print(stderr, "hkcheck: warning: {}: the run goes on without a cache (--no-cache)\n", e.what());
      s.cache_dir.clear();
      s.host.cache_dir.clear();
    }
  }
  if (s.host.races && !find_backend(s.backend)) s.backend = host_backend().name;  // auto: the only backend that has the detector
  return std::nullopt;
}

}  // namespace hk
