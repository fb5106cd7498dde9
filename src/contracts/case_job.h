// What the parent sends a worker to run one case: the kernel's files and names, the case as the
// parent planned it (every manifest expression already evaluated, so the worker neither reads
// nor validates the manifest) and the run's settings. It travels as one JSON line.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "model/case_plan.h"
#include "model/manifest.h"
#include "contracts/result.h"

namespace hk {

struct CaseJob {
  std::string kernel, case_name, manifest;
  std::string source, entry, reference;  // kernel file path, entry point, reference name
  std::vector<std::string> file_entries;  // all entries compiled with this one (KernelSpec)
  std::vector<std::string> include_dirs, compile_options;  // the manifest's (KernelSpec)
  std::string gpu_only;  // why the host backend cannot run it; empty when it can
  std::string reference_library;  // the shared library holding the reference (runtime_references.h)
  std::string reference_error;    // why there is none: the reference did not compile
  CasePlan plan;  // its params are the case's
  uint64_t seed = 0;        // the run's seed, or the sweep's for this case; tensor streams derive from it
  std::string stream_name;  // the case name the streams derive from (CaseSpec::stream_name)
  int repeat = 1;         // launches on the same inputs: the run's --repeat or the manifest's, the larger
  std::string repro_dir;  // when set, a failing case's outputs are written there (repro.h)
  int time_launches = 0;  // --time: launches timed after a pass (0: none)
  bool reference_cache = true;  // reference outputs may be read from and kept in the cache (reference_cache.h); --no-ref-cache
};

// The options a kernel is compiled with after the backend's own: its defines, its own folder
// and the manifest's include folders as header paths (as nvcc searches the source's folder), and
// the manifest's options. One definition for runs, compile-only and repro scripts.
std::vector<std::string> kernel_compile_options(const std::vector<std::string>& define_options, const std::string& source,
                                                const std::vector<std::string>& include_dirs,
                                                const std::vector<std::string>& manifest_options);

// What a case's kernel file is compiled with (source_text: the file's contents). One definition
// for the worker that runs the case and the compiles made ahead of it (compile_ahead.h), so that
// both reach the same key.
CompileRequest case_compile(const CaseJob& job, std::string source_text);

// Plans case c of k; throws PlanError (naming the JSON path) when an expression cannot be evaluated.
CaseJob make_case_job(const KernelSpec& k, const CaseSpec& c, uint64_t seed, int run_repeat, const std::string& repro_dir);

// The ERROR result of a case that cannot be planned, naming the manifest and the field, and that
// text alone.
CaseResult plan_error_result(const KernelSpec& k, const CaseSpec& c, const PlanError& e);
std::string plan_error_text(const KernelSpec& k, const PlanError& e);

// A result naming the job's case (kernel, case, manifest, params), ERROR until it is filled in.
CaseResult job_result(const CaseJob& job);

void to_json(nlohmann::json& j, const CaseJob& job);
void from_json(const nlohmann::json& j, CaseJob& job);  // throws nlohmann::json::exception or std::runtime_error

}  // namespace hk
