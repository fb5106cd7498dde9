// --compile-only: compiles every selected kernel, in each configuration its cases produce (the
// distinct defines), for each target architecture, in compile workers (compile_worker.h), with
// no device. The verdicts say whether a kernel compiles for a target: nothing runs, so nothing
// is said about its results.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "model/manifest.h"
#include "contracts/result.h"

namespace hk {

struct CompileOnlyOptions {
  std::string exe;                 // this hkcheck, started again as a compile worker
  std::vector<std::string> archs;  // "sm_90", "gfx90a", ...
  int jobs = 1;                    // compile workers at once
  double timeout_s = 300;          // per compile
  HostOptions host;
  std::string hiprtc_root;  // --hiprtc-root as given; "" chooses (choose_hiprtc_root)
  // hkcheck's cache folder, "" with --no-cache. hipRTC 6+'s comgr keeps a cache of its own, which
  // makes a repeated compile about 25 times cheaper: it goes in CACHE/comgr, or is off.
  std::string cache_dir;
  std::string project_root;  // the project's folder: compile cache keys name paths relative to it
};

// One result per kernel x configuration x architecture, in that order: PASS when it compiled,
// COMPILE_ERROR with the log (or the compiler's crash), ERROR when the target's compiler cannot
// be opened. on_result sees each as it finishes, one call at a time.
// compilers, when given, gets the name each target's compiler gave itself, by arch.
std::vector<CaseResult> run_compile_only(const std::vector<const KernelSpec*>& kernels, const CompileOnlyOptions& opt,
                                         const std::function<void(const CaseResult&)>& on_result,
                                         std::map<std::string, std::string>* compilers = nullptr);

struct RunInfo;

inline constexpr const char* kCompileOnlyFolder = "results/compile-only";  // compile-only's default --out
struct ReportSettings;

// The whole mode: compiles, prints a line per result, writes the reports (test_results.json /
// .md into report.out_dir, by default results/compile-only; JUnit when asked). run says who ran
// it; its backend and device are filled here. Returns the exit code (exit_codes.h).
int compile_only_command(const std::vector<const KernelSpec*>& kernels, const CompileOnlyOptions& opt, RunInfo run,
                         const ReportSettings& report);

}  // namespace hk
