// Runs one case inside a worker process: plan, check device limits, build inputs, compile, launch
// on poisoned outputs inside guard regions (as many times as asked, to catch races), run the
// reference, compare. Everything it learns goes into the result;
// it throws only for a sticky device fault, after which the process must exit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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
  // Returns the output and whether it came from the cache. header_dirs: the folders whose
  // headers the source may include (their contents are part of the key).
  // *key, when given, receives the cache key (for load()).
  CompileOutput get(Backend& be, const CompileRequest& request, const std::vector<std::string>& header_dirs, bool* cached,
                    std::string* key = nullptr);
  // The entry of a program loaded once per process: a worker that runs many cases loads each
  // program once, so its __device__ variables live on from case to case as they would in an
  // application (a kernel that relies on them starting at zero fails after its first case: LEAK).
  Backend::Kernel load(Backend& be, const std::string& key, const std::string& binary, const std::string& entry);

 private:
  std::string dir_;
  std::map<std::string, CompileOutput> memory_;
  std::map<std::string, Backend::Kernel> loaded_;
};

struct CaseJob;
class ReferenceCache;

// The binary of a compile-cache file, or nothing when the file is torn, altered, of an older
// format or sealed for another key (it is then compiled again).
std::optional<std::string> unseal_cache_entry(const std::string& entry, const std::string& key);

// Runs a case the parent planned (case_job.h). sticky_fault is set when the device context is
// dead after this case (the result is CRASH). references: where the reference's outputs are
// read from and kept (unless the job says not to); nullptr computes them every time.
CaseResult execute_case(Backend& be, const CaseJob& job, CompileCache& cache, bool* sticky_fault,
                        ReferenceCache* references = nullptr);

// Plans case c of k here, then runs it as above (for tests and tools that hold the manifest).
CaseResult execute_case(Backend& be, const KernelSpec& k, const CaseSpec& c, const ExecOptions& opt,
                        CompileCache& cache, bool* sticky_fault);

}  // namespace hk
