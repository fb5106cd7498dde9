#include "contracts/journal_header.h"
#include "util/json_field.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hk {

using nlohmann::json;

void to_json(json& j, const JournalHeader& h) {
  j = {{"type", "run"},
       {"schema", "hkcheck-journal"},
       {"schema_version", kJournalVersion},
       {"hkcheck_version", h.hkcheck_version},
       {"git_commit", h.git_commit},
       {"started_at", h.started_at},
       {"spec", h.spec},
       {"device", h.device ? json(*h.device) : json(nullptr)},
       {"cases", h.cases}};
}

void from_json(const json& j, JournalHeader& h) {
  if (!j.is_object() || j.value("type", json()) != "run" || j.value("schema", json()) != "hkcheck-journal")
    throw std::runtime_error("/type: expected the run header of an hkcheck journal");
  const json version = j.value("schema_version", json());
  if (version != kJournalVersion)
    throw std::runtime_error(fmt::format("/schema_version: a journal of version {}; this hkcheck resumes version {} (start a new run)",
                                         version.dump(), kJournalVersion));
  read_field(j, "hkcheck_version", h.hkcheck_version);
  read_field(j, "git_commit", h.git_commit);
  read_field(j, "started_at", h.started_at);
  read_field(j, "spec", h.spec);  // its errors name /spec/...
  h.device.reset();
  if (!j.contains("device") || !j["device"].is_null()) read_field(j, "device", h.device.emplace());
  read_field(j, "cases", h.cases);
}

}  // namespace hk
