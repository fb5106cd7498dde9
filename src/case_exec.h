// Runs one case inside a worker process: plan, check device limits, build inputs, compile, launch
// on poisoned outputs inside guard regions (as many times as asked, to catch races), run the
// reference, compare. Everything it learns goes into the result;
// it throws only for a sticky device fault, after which the process must exit.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "backend.h"
#include "manifest.h"
#include "result.h"

namespace hk {

struct ExecOptions {
  uint64_t seed = 0;  // the run's seed; each tensor's stream derives from it
  int repeat = 1;     // launches on the same inputs; outputs that differ make the case FLAKY
  std::string repro_dir;  // when set, a failing case's outputs are written there (repro.h)
};

// Compiled modules of this process and, optionally, on disk, keyed by everything that goes
// into a compile (source, options, prelude, device arch, compiler version).
class CompileCache {
 public:
  // dir: where compiled binaries are kept between processes; empty for memory only.
  explicit CompileCache(std::string dir) : dir_(std::move(dir)) {}
  // Returns the output and whether it came from the cache.
  CompileOutput get(Backend& be, const std::string& source, const std::string& name,
                    const std::vector<std::string>& options, bool* cached);

 private:
  std::string dir_;
  std::map<std::string, CompileOutput> memory_;
};

// sticky_fault is set when the device context is dead after this case (the result is CRASH).
CaseResult execute_case(Backend& be, const KernelSpec& k, const CaseSpec& c, const ExecOptions& opt,
                        CompileCache& cache, bool* sticky_fault);

}  // namespace hk
