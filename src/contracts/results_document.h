// test_results.json as one type: the run record and every case's result. The writer (reports),
// and every reader (diff, merge, --last-failed, --shard-durations) go through its to_json and
// from_json; from_json checks the schema and its version and reads version 1 files too.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "contracts/run_info.h"
#include "contracts/result.h"

namespace hk {

constexpr int kResultsSchemaVersion = 2;
constexpr int kOldestResultsSchemaVersion = 1;  // read by diff, merge and --last-failed; never written

struct ResultsDocument {
  int schema_version = kResultsSchemaVersion;  // as read; to_json writes the current one
  RunInfo run;
  std::vector<CaseResult> cases;  // compile logs in full (the file keeps each once, by id)
};

// {"schema", "schema_version", "run", "summary", "compile_logs", "cases"} (docs/results.md).
void to_json(nlohmann::json& j, const ResultsDocument& d);
// Throws std::runtime_error naming the JSON path of what is wrong ("/schema_version: ...",
// "/cases/12: ...").
void from_json(const nlohmann::json& j, ResultsDocument& d);

// The name a compile log goes by in the file: "log-" and 8 hex digits of its hash.
std::string compile_log_id(const std::string& log);

}  // namespace hk
