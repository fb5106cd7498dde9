// The first line of a run's journal (results.jsonl): which run it is, the RunSpec it runs with,
// the device it found and the cases it selected. --resume reads it back through from_json only.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "contracts/run_spec.h"

namespace hk {

// 2: the RunSpec, the device and the selected cases; case lines carry their plan's fingerprint.
constexpr int kJournalVersion = 2;

struct JournalHeader {
  std::string hkcheck_version, git_commit, started_at;
  RunSpec spec;
  std::optional<DeviceInfo> device;  // none when the run found no device
  std::vector<std::string> cases;    // the ids ("kernel/case") the run selected, in its order
};

// {"type": "run", "schema": "hkcheck-journal", "schema_version", ...}.
void to_json(nlohmann::json& j, const JournalHeader& h);
// Throws std::runtime_error naming the field: another schema, another version, a missing field.
void from_json(const nlohmann::json& j, JournalHeader& h);

}  // namespace hk
