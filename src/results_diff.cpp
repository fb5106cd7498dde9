#include "results_diff.h"

#include <map>
#include <stdexcept>

namespace hk {
namespace {

using nlohmann::json;

std::string reason_of(const json& c) {
  return c.contains("reason") && c["reason"].is_string() ? c["reason"].get<std::string>() : "";
}

// A verdict as compared: the status, and for skips their reason (a HW_LIMIT is not a TIER skip).
std::string verdict(const json& c) {
  std::string v = c.at("status").get<std::string>();
  const std::string reason = reason_of(c);
  if (!reason.empty()) v += " (" + reason + ")";
  // An XFAIL is compared by what went wrong underneath: a CRASH on one device and a TIMEOUT on
  // another are different verdicts even if both were expected.
  if (c.contains("actual_status") && c["actual_status"].is_string()) v += " [" + c["actual_status"].get<std::string>() + "]";
  return v;
}

// Cases a run did not try: no device, or outside the tier it ran.
bool not_run(const json& c) {
  const std::string reason = reason_of(c);
  return c.at("status") == "SKIP" && (reason == "NO_DEVICE" || reason == "TIER");
}

std::map<std::pair<std::string, std::string>, const json*> index(const json& doc, const char* which) {
  if (!doc.contains("cases") || !doc["cases"].is_array())
    throw std::runtime_error(std::string(which) + ": not a test_results.json document (no \"cases\" array)");
  std::map<std::pair<std::string, std::string>, const json*> m;
  for (const json& c : doc["cases"]) m[{c.at("kernel").get<std::string>(), c.at("case").get<std::string>()}] = &c;
  return m;
}

}  // namespace

ResultsDiff diff_results(const json& a, const json& b) {
  ResultsDiff d;
  const auto ia = index(a, "first"), ib = index(b, "second");
  for (const auto& [key, ca] : ia) {
    const auto it = ib.find(key);
    if (it == ib.end()) {
      d.missing.push_back({key.first, key.second, verdict(*ca), "absent"});
      continue;
    }
    const json& cb = *it->second;
    if (not_run(*ca) || not_run(cb)) {
      d.missing.push_back({key.first, key.second, verdict(*ca), verdict(cb)});
      continue;
    }
    ++d.compared;
    if (verdict(*ca) != verdict(cb)) d.changed.push_back({key.first, key.second, verdict(*ca), verdict(cb)});
  }
  for (const auto& [key, cb] : ib)
    if (!ia.count(key)) d.missing.push_back({key.first, key.second, "absent", verdict(*cb)});
  return d;
}

}  // namespace hk
