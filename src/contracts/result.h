// The outcome of one case, as the worker reports it and the reports print it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/expected_verdict.h"
#include "model/manifest.h"
#include "contracts/output_metrics.h"
#include "model/params.h"
#include "model/status.h"

namespace hk {


// A resource the case asked for beyond what the device gives (SKIP with reason HW_LIMIT).
struct LimitExceeded {
  std::string what;  // "dynamic shared memory (bytes)", "threads per block", ...
  int64_t requested = 0, limit = 0;
};

// Bytes changed in the guard regions around one device buffer (guard.h).
struct GuardViolation {
  std::string tensor;
  std::string side;        // "before" (offsets < 0 from the buffer's start) or "after" (offsets >= 0 from its end)
  int64_t bytes = 0;       // how many guard bytes changed
  int64_t first_offset = 0, last_offset = 0;
};

// Launches that disagreed with the first launch on the same inputs (FLAKY).
struct RepeatDiff {
  std::string tensor;
  int launch = 0;          // 2 for the second launch, ...
  int64_t elements = 0;    // elements whose bytes differ from the first launch's
};

// A case whose verdict in a reused worker differs from its verdict alone in a fresh one: state
// left on the device (a __device__ counter never reset, memory of an earlier case) changed it.
struct LeakFinding {
  Status in_worker = Status::FAIL;  // the verdict after the cases named in `after`
  std::string in_worker_message;
  Status alone = Status::PASS;      // the verdict of the rerun in a fresh worker
  std::string alone_message;
  std::vector<std::string> after;   // "kernel / case" that ran before it in that worker, latest last (at most kMaxLeakHistory)
  int64_t after_count = 0;          // how many ran before it in all
};
constexpr size_t kMaxLeakHistory = 20;

// Where a case ran: which device, and how many cases its worker had run before it (0: a fresh
// worker, as with --isolation case).
struct Placement {
  int device = -1;    // -1: not run on a device
  int position = -1;
};

struct Timings {
  double compile_ms = 0, kernel_ms = 0, reference_ms = 0, wall_ms = 0;
  bool compile_cached = false;
  double inputs_ms = 0;   // generating, rounding and packing the inputs, poisoning the outputs
  double compare_ms = 0;  // comparing the outputs with the reference's (and dequantization checks)
  double worker_start_ms = 0;  // starting a worker (process and device context) for this case; 0 in a reused one
  bool reference_cached = false;  // the reference's outputs were read from the cache (reference_cache.h), not computed
  double reference_store_ms = 0;  // writing the reference's outputs into the cache
};

// CPU milliseconds of the worker process over the parts of Timings of the same names (phase_clock.h):
// all its threads, so a part on several cores costs more CPU than wall. 0 where a part did not run.
struct CaseCpu {
  double inputs_ms = 0, reference_ms = 0, reference_store_ms = 0, compare_ms = 0;
  double case_ms = 0;  // the whole case in the worker, compiles and launches included
};

// --time: the kernel timed on the case's inputs after two warm-up launches (kernel_timing.h).
struct KernelTiming {
  int launches = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double bytes = 0;     // its tensors move at least: inputs read, outputs written
  double gb_per_s = 0;  // bytes over the median
};

// One compute-sanitizer tool's rerun of the case (sanitize.h).
struct SanitizerTool {
  std::string tool;
  Status status = Status::ERROR;  // of the rerun under the tool
  int errors = 0;                 // of the tool's summary line
  std::string summary;            // its "ERROR SUMMARY" line
  std::string first_error;        // its first report, "" when none
  std::string log;                // the path of its whole log
  std::string note;               // e.g. the tool wrote no log
};
struct CaseSanitizer {
  std::string tool_path;
  std::vector<SanitizerTool> tools;
};

struct CaseResult {
  std::string kernel, case_name, manifest;
  Params params;
  // A seed sweep's copy of a case (seed_sweep.h): its seed and the case it was copied from.
  std::optional<uint64_t> seed;
  std::string swept_from;
  Status status = Status::ERROR;
  std::string reason;   // SKIP: HW_LIMIT, NO_DEVICE, ...
  std::string message;  // error text, crash text, or which function a compile error is in
  std::string compile_log;  // COMPILE_ERROR: the compiler's whole log (reports keep each log once)
  std::vector<OutputMetrics> outputs;
  std::optional<LimitExceeded> limit;
  nlohmann::json launch;  // grid, block, shared bytes
  Timings timings;
  CaseCpu cpu;
  std::vector<std::string> notes;
  std::vector<GuardViolation> guards;  // empty when no guard was touched
  std::optional<GuardViolation> read_outside;  // a FAIL whose output depends on bytes outside a tensor (outside_reads.h)
  int launches = 0;                    // how many times the kernel ran (--repeat / "repeat")
  std::vector<RepeatDiff> repeat_diffs;
  std::optional<ExpectedVerdict> expected;  // set when an expectation applied to this device
  std::optional<Status> actual_status;      // for XFAIL and XPASS: the verdict before the expectation
  std::string repro;          // folder of the case's repro, relative to the results folder
  std::optional<CaseSanitizer> sanitizer;  // the --sanitize reruns, when there were any
  std::optional<LeakFinding> leak;  // set for LEAK, and for a failure confirmed alone (leak->alone == in_worker)
  Placement placement;
  nlohmann::json resources;  // what the compiled kernel needs (code_object_resources.h), or null
  std::optional<KernelTiming> timing;  // --time, for a passing case
};

void to_json(nlohmann::json& j, const CaseResult& r);
void from_json(const nlohmann::json& j, CaseResult& r);
void to_json(nlohmann::json& j, const OutputMetrics& m);
void from_json(const nlohmann::json& j, OutputMetrics& m);

// A result naming the case (kernel, case, manifest, params) with status st and nothing else yet.
CaseResult blank_result(const KernelSpec& k, const CaseSpec& c, Status st = Status::ERROR);

}  // namespace hk
