// hkcheck: proves GPU kernels right. See README.md; `hkcheck --help` lists the options.
#include <fmt/format.h>
#include <string>

#include "app/cli/command_line.h"
#include "worker/compile_worker.h"
#include "process/descriptor_limit.h"
#include "app/diff_command.h"
#include "model/exit_codes.h"
#include "app/merge_command.h"
#include "app/mutate/mutate_command.h"
#include "app/run_command.h"
#include "process/standard_streams.h"
#include "worker/worker.h"

namespace {

using namespace hk;

int legacy_diff(Settings& s) { return diff_command(DiffOptions{s.diff_files[0], s.diff_files[1], "change", "", ""}); }
int worker(Settings& s) { return run_worker(WorkerOptions{s.backend, s.device, s.protocol_fd, s.cache_dir, s.project_root, s.host, s.cpu_threads, s.resume_stopped_parent}); }
int compile_worker(Settings& s) {
  return run_compile_worker(
      CompileWorkerOptions{s.backend, s.archs.empty() ? "" : s.archs.front(), s.hiprtc_root.empty() ? "system" : s.hiprtc_root, s.protocol_fd, s.cache_dir, s.project_root, s.host,
                           s.yield_cpu});
}

// Modes with a command line of their own: the first word selects them (argv[0] is the word).
struct OwnCommandLineMode {
  const char* word;
  int (*main)(int argc, char** argv);
};
constexpr OwnCommandLineMode kOwnCommandLine[] = {
    {"diff", diff_main},    // hkcheck diff A B: two runs compared case by case
    {"merge", merge_main},  // hkcheck merge OUT PART...: the shards of one run as one run
};

// Modes that share the run's command line (app/cli/command_line.h): a flag or a first word selects
// them, and each reads only the Settings it fills.
struct SharedMode {
  ModeName name;
  int (*main)(Settings& s);
};
constexpr SharedMode kShared[] = {
    {ModeName::run, run_command},                  // the default: run the cases, write the reports
    {ModeName::list, list_command},                // --list: kernels and cases, nothing run
    {ModeName::compile_only, compile_only_mode},   // --compile-only --arch A: compile, no device
    {ModeName::mutate, mutate_command},            // mutate: mutants of the kernels, run against their cases
    {ModeName::diff_legacy, legacy_diff},          // --diff A B: the older spelling of `diff`
    {ModeName::worker, worker},                    // internal: runs cases for a parent
    {ModeName::compile_worker, compile_worker},    // internal: compiles for a compile-only parent
};

}  // namespace

int main(int argc, char** argv) {
  keep_standard_streams_writable();
  raise_descriptor_limit();
  if (const unsigned long limit = descriptor_limit(); limit != 0 && limit < kLeastDescriptors) {
    fmt::print(stderr, "hkcheck: the descriptor limit (ulimit -n) is {}, below the {} a run needs (its workers' pipes, the journal, the "
               "cache locks): raise it, e.g. ulimit -n 1024\n", limit, kLeastDescriptors);
    return kExitUsage;
  }
  if (argc > 1)
    for (const OwnCommandLineMode& m : kOwnCommandLine)
      if (std::string(argv[1]) == m.word) return m.main(argc - 1, argv + 1);
  Settings settings;
  if (const auto exit_now = parse_command_line(argc, argv, settings)) return *exit_now;
  for (const SharedMode& m : kShared)
    if (m.name == settings.mode) return m.main(settings);
  return kExitUsage;
}
