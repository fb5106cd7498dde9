// The outcome of one case, as the worker reports it and the reports print it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "metrics.h"
#include "params.h"

namespace hk {

// NOT_RUN: the run was interrupted before the case finished; `hkcheck --resume` runs it.
enum class Status { PASS, FAIL, CRASH, TIMEOUT, SKIP, COMPILE_ERROR, ERROR, NOT_RUN };
const char* status_name(Status s);
std::optional<Status> parse_status(const std::string& s);
bool status_ok(Status s);  // PASS and SKIP do not fail a run

// A resource the case asked for beyond what the device gives (SKIP with reason HW_LIMIT).
struct LimitExceeded {
  std::string what;  // "dynamic shared memory (bytes)", "threads per block", ...
  int64_t requested = 0, limit = 0;
};

struct Timings {
  double compile_ms = 0, kernel_ms = 0, reference_ms = 0, wall_ms = 0;
  bool compile_cached = false;
};

struct CaseResult {
  std::string kernel, case_name, manifest;
  Params params;
  Status status = Status::ERROR;
  std::string reason;   // SKIP: HW_LIMIT, NO_DEVICE, ...
  std::string message;  // error text, crash text or compiler log
  std::vector<OutputMetrics> outputs;
  std::optional<LimitExceeded> limit;
  nlohmann::json launch;  // grid, block, shared bytes
  Timings timings;
  std::vector<std::string> notes;
  std::string repro;          // folder of the case's repro, relative to the results folder
  nlohmann::json sanitizer;   // the --sanitize rerun (tool, status, first report), or null
};

void to_json(nlohmann::json& j, const CaseResult& r);
void from_json(const nlohmann::json& j, CaseResult& r);
void to_json(nlohmann::json& j, const OutputMetrics& m);
void from_json(const nlohmann::json& j, OutputMetrics& m);

}  // namespace hk
