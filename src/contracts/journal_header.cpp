#include "contracts/journal_header.h"

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
  h.hkcheck_version = j.at("hkcheck_version").get<std::string>();
  h.git_commit = j.at("git_commit").get<std::string>();
  h.started_at = j.at("started_at").get<std::string>();
  try {
    h.spec = j.at("spec").get<RunSpec>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("/spec: ") + e.what());
  }
  h.device.reset();
  if (!j.at("device").is_null()) h.device = j["device"].get<DeviceInfo>();
  h.cases = j.at("cases").get<std::vector<std::string>>();
}

}  // namespace hk
