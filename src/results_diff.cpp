#include "results_diff.h"

#include <algorithm>
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

// Cases a run did not try: no device, outside the tier it ran, a kernel of the other vendor, or
// never started (interrupted, -x).
bool not_run(const json& c) {
  const std::string reason = reason_of(c);
  return c.at("status") == "NOT_RUN" || (c.at("status") == "SKIP" && (reason == "NO_DEVICE" || reason == "TIER" || reason == "NOT_FOR_VENDOR"));
}

std::map<std::pair<std::string, std::string>, const json*> index(const json& doc, const char* which) {
  if (!doc.contains("cases") || !doc["cases"].is_array())
    throw std::runtime_error(std::string(which) + ": not a test_results.json document (no \"cases\" array)");
  std::map<std::pair<std::string, std::string>, const json*> m;
  for (const json& c : doc["cases"]) m[{c.at("kernel").get<std::string>(), c.at("case").get<std::string>()}] = &c;
  return m;
}

bool passed(const json& c) { return c.at("status") == "PASS" || c.at("status") == "XFAIL"; }

bool hardware_limit(const json& c) {
  const std::string reason = reason_of(c);
  return c.at("status") == "SKIP" && (reason == "HW_LIMIT" || reason == "TOO_LARGE");
}

// A verdict the manifest declares for this device's arch (an expect with "arch"), where the
// other device passes: a difference of the devices (a wave64 assumption under warps of 32,
// say), as a HW_LIMIT on one of them is.
bool declared_for_one_device(const json& a, const json& b) {
  return (a.at("status") == "XFAIL" && b.at("status") == "PASS") || (a.at("status") == "PASS" && b.at("status") == "XFAIL");
}

ChangeKind kind_of(const json& a, const json& b) {
  if (hardware_limit(a) != hardware_limit(b) || declared_for_one_device(a, b)) return ChangeKind::device;
  if (passed(a) && !passed(b)) return ChangeKind::regression;
  if (!passed(a) && passed(b)) return ChangeKind::fix;
  return ChangeKind::other;
}

double number_at(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : -1;  // "nan" and absent: not compared
}

// Thresholds: the worst error doubled and grew by more than a rounding step, or the kernel's
// median time moved by half (times under 20 us are launch noise).
// Kernel times are compared only between runs on the same kind of device.
void compare_metrics(const std::string& kernel, const std::string& name, const json& a, const json& b, bool same_device,
                     std::vector<MetricChange>& out) {
  if (a.at("status") != "PASS" || b.at("status") != "PASS") return;
  const json& oa = a.value("outputs", json::array());
  const json& ob = b.value("outputs", json::array());
  for (size_t i = 0; i < std::min(oa.size(), ob.size()); ++i) {
    const std::string o = oa[i].value("name", "?");
    const double ua = number_at(oa[i], "max_ulps"), ub = number_at(ob[i], "max_ulps");
    if (ua >= 0 && ub >= 0 && (ub > 2 * ua + 1 || ua > 2 * ub + 1)) out.push_back({kernel, name, o + " max ulps", ua, ub});
    const double la = number_at(oa[i], "rel_l2"), lb = number_at(ob[i], "rel_l2");
    if (la >= 0 && lb >= 0 && std::max(la, lb) > 1e-6 && (lb > 2 * la || la > 2 * lb)) out.push_back({kernel, name, o + " rel L2", la, lb});
  }
  // Only --time's medians: the one launch every case times with a host clock varies from run to
  // run by more than the threshold (hundreds of "changes" between two runs of one H100).
  const bool timed = a.contains("timing") && a["timing"].is_object() && b.contains("timing") && b["timing"].is_object();
  const double ta = timed ? number_at(a["timing"], "median_ms") : -1, tb = timed ? number_at(b["timing"], "median_ms") : -1;
  if (same_device && ta > 0.02 && tb > 0.02 && (tb > 1.5 * ta || ta > 1.5 * tb)) out.push_back({kernel, name, "kernel ms", ta, tb});
}

}  // namespace

const char* change_kind_name(ChangeKind k) {
  switch (k) {
    case ChangeKind::regression: return "regression";
    case ChangeKind::fix: return "fix";
    case ChangeKind::device: return "device difference";
    case ChangeKind::other: return "other change";
  }
  return "?";
}

size_t ResultsDiff::count(ChangeKind k) const {
  return static_cast<size_t>(std::count_if(changed.begin(), changed.end(), [&](const VerdictChange& c) { return c.kind == k; }));
}

ResultsDiff diff_results(const json& a, const json& b) {
  ResultsDiff d;
  const auto ia = index(a, "first"), ib = index(b, "second");
  auto device_of = [](const json& doc) {
    const json run = doc.value("run", json::object());
    const json dev = run.value("device", json());
    return run.value("backend", std::string()) + "/" + (dev.is_object() ? dev.value("name", std::string()) : std::string());
  };
  const bool same_device = device_of(a) == device_of(b);
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
    if (verdict(*ca) != verdict(cb)) d.changed.push_back({key.first, key.second, verdict(*ca), verdict(cb), kind_of(*ca, cb)});
    else compare_metrics(key.first, key.second, *ca, cb, same_device, d.metrics);
  }
  for (const auto& [key, cb] : ib)
    if (!ia.count(key)) d.missing.push_back({key.first, key.second, "absent", verdict(*cb)});
  std::stable_sort(d.changed.begin(), d.changed.end(), [](const VerdictChange& x, const VerdictChange& y) { return x.kind < y.kind; });
  return d;
}

}  // namespace hk
