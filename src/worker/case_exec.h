// Runs one case inside a worker process: plan, check device limits, build inputs, compile, launch
// on poisoned outputs inside guard regions (as many times as asked, to catch races), run the
// reference, compare. Everything it learns goes into the result;
// it throws only for a sticky device fault, after which the process must exit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "platform/backend.h"
#include "compile/compile_cache.h"
#include "model/manifest.h"
#include "contracts/result.h"

namespace hk {

struct ExecOptions {
  uint64_t seed = 0;  // the run's seed; each tensor's stream derives from it
  int repeat = 1;     // launches on the same inputs; outputs that differ make the case FLAKY
  std::string repro_dir;  // when set, a failing case's outputs are written there (repro.h)
};

struct CaseJob;
class DeviceInputs;
class ReferenceCache;

// Runs a case the parent planned (case_job.h). sticky_fault is set when the device context is
// dead after this case (the result is CRASH). references: where the reference's outputs are
// read from and kept (unless the job says not to); nullptr computes them every time.
// device_inputs: makes the element-wise inputs on the GPU (device_inputs.h); nullptr makes them
// all on the CPU.
CaseResult execute_case(Backend& be, const CaseJob& job, CompileCache& cache, bool* sticky_fault,
                        ReferenceCache* references = nullptr, DeviceInputs* device_inputs = nullptr);

// Plans case c of k here, then runs it as above (for tests and tools that hold the manifest).
CaseResult execute_case(Backend& be, const KernelSpec& k, const CaseSpec& c, const ExecOptions& opt,
                        CompileCache& cache, bool* sticky_fault);

}  // namespace hk
