// Everything the command line sets for the modes that share it (run, list, compile-only and the
// internal worker modes), in one place: the parser fills it, and each mode reads only it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "backends/host/bounded_command.h"
#include "process/memory_limit.h"
#include "report/report_settings.h"
#include "worker/worker.h"

namespace hk {

enum class ModeName { run, list, compile_only, mutate, diff_legacy, worker, compile_worker };

// Which cases: the kernels and cases a run, a list or a compile-only takes.
struct SelectionSettings {
  std::vector<std::string> patterns;       // kernel names, globs, or kernel/case globs
  std::vector<std::string> case_patterns;  // -k
  std::vector<std::string> excludes;       // --exclude
  std::string last_failed;                 // --last-failed DIR
  std::string shard, shard_durations;      // --shard K/N, --shard-durations
  bool all = false;
  bool allow_outside_root = false;         // --allow-outside-root: kernel sources outside the project's repository
};

// hkcheck mutate (docs/mutate.md).
struct MutateSettings {
  double budget_s = 0;     // --budget: no mutant starts after this many seconds (0: no bound)
  size_t max_mutants = 0;  // --max-mutants: per kernel, chosen by --seed (0: every one)
  int parallel = 0;        // --parallel: mutants run at once (0: --jobs x GPUs)
  std::string save_mutants;  // --save-mutants: write the mutants here, run nothing
  std::string mutants_from;  // --mutants: run these instead of making them (no libclang needed)
};

struct Settings {
  ModeName mode = ModeName::run;
  std::vector<std::string> argv;  // as given, for the reports
  std::set<std::string> given;    // options given on the command line (--resume keeps the rest)

  SelectionSettings select;
  ReportSettings report;
  MutateSettings mutate;
  std::string root_dir, manifest_dir;
  std::string backend = "auto";
  std::string cache_dir;  // "" with --no-cache
  std::string project_root;  // workers: the project's folder, which compile cache keys are relative to
  std::string tier = "auto";
  std::string resume_dir;
  std::string isolation = "worker";
  std::string source_vendor;  // --source: which of a kernel's per-vendor files to run ("": the device's)
  std::string sanitize;  // "" none, "failures", or TOOL[,TOOL]
  std::vector<std::string> archs;        // --compile-only targets
  std::string hiprtc_root;               // --hiprtc-root as given ("" when not: choose_hiprtc_root)
  std::vector<std::string> diff_files;   // --diff A B
  HostOptions host;
  double timeout = 30;
  double compile_timeout = host::kDefaultCompileLimitSeconds;  // each reference library's compile
  int64_t memory_limit = kMemoryLimitAuto;  // --memory-limit, per worker (memory_limit.h)
  uint64_t seed = 0;
  std::string seeds;  // --seeds text
  int device = 0;
  std::vector<int> devices;
  int repeat = 1, jobs = 0;
  bool exit_first = false;
  bool strict = false;  // a project rule a kernel breaks (a tolerance without "why") is a manifest error (--strict)
  bool no_ref_cache = false;  // compute every reference (reference_cache.h) instead of reading it back
  int max_fail = 0;                // --maxfail N (0: no limit)
  std::vector<std::string> axes;   // -a NAME=VALUES
  bool time = false;
  int time_launches = 20;

  // Internal: the worker modes and tests.
  int protocol_fd = kWorkerProtocolFd;
  int cpu_threads = 1;
  bool resume_stopped_parent = false;  // a worker sends a stopped parent SIGCONT (parent_watch.h)
  bool yield_cpu = false;  // a compile worker compiling ahead of a run lowers its priority (compile_ahead.h)
  std::string worker_exe;
  std::string self_exe;  // this program, to start again as a worker

  bool was_given(const std::string& option) const { return given.count(option) > 0; }
};

}  // namespace hk
