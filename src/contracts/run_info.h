// RunInfo: the "run" record of test_results.json. Who ran what, where and when, what the run
// found on the way (manifest errors, an interrupt, the sanitizer pass), and the RunSpec it ran
// with. One to_json / from_json; from_json reads the record of schema 1 results as well.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "contracts/run_spec.h"

namespace hk {

// What --sanitize did for the run as a whole.
struct SanitizerRun {
  bool ran = false;
  std::string why;        // when it did not run
  std::string tool_path;  // when it ran
  std::vector<std::string> tools;
  bool every_case = false;
  bool operator==(const SanitizerRun&) const = default;
};

struct RunInfo {
  std::string hkcheck_version, git_commit, host, started_at;  // started_at: ISO 8601 UTC
  RunSpec spec;
  std::optional<DeviceInfo> device;  // none when no device was found
  std::vector<std::string> command;
  std::vector<std::string> manifest_errors;
  double wall_s = 0;
  std::string interrupted;    // "SIGINT" or "SIGTERM" when the run was stopped early
  std::string resumed_from;   // the journal a --resume run continued
  std::optional<SanitizerRun> sanitizer;  // none without --sanitize
  std::vector<std::string> missing_shards;  // a merge of some shards only (--allow-partial): "2/3", ...
  bool markdown_every_case = false;  // --md-every-case: the markdown lists passing cases too (not written)
};

void to_json(nlohmann::json& j, const SanitizerRun& s);
void from_json(const nlohmann::json& j, SanitizerRun& s);
void to_json(nlohmann::json& j, const RunInfo& r);
// The record as this hkcheck writes it (results schema 2).
void from_json(const nlohmann::json& j, RunInfo& r);
// The record of a results file of schema_version 1, which had no "spec": the fields it kept
// (seed, seeds, backend, tier, source_vendor) go into spec, the rest of spec keeps its defaults.
RunInfo run_info_from_schema_1(const nlohmann::json& j);

}  // namespace hk
