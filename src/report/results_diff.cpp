#include "report/results_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "select/case_filter.h"
#include "model/status.h"

namespace hk {
namespace {

using CaseKey = std::pair<std::string, std::string>;  // kernel, case

// A verdict as compared: the status, and for skips their reason (a HW_LIMIT is not a TIER skip).
std::string verdict(const CaseResult& c) {
  std::string v = status_name(c.status);
  if (!c.reason.empty()) v += " (" + c.reason + ")";
  // An XFAIL is compared by what went wrong underneath: a CRASH on one device and a TIMEOUT on
  // another are different verdicts even if both were expected.
  if (c.actual_status) v += std::string(" [") + status_name(*c.actual_status) + "]";
  return v;
}

// Cases a run did not try: no device, outside the tier it ran, a kernel of the other vendor, or
// never started (interrupted, -x).
bool not_run(const CaseResult& c) {
  return c.status == Status::NOT_RUN ||
         (c.status == Status::SKIP && find_reason(c.reason) && find_reason(c.reason)->not_for_here);
}

std::map<CaseKey, const CaseResult*> index(const ResultsDocument& doc, const char* which) {
  std::map<CaseKey, const CaseResult*> m;
  for (const CaseResult& c : doc.cases)
    if (!m.emplace(CaseKey{c.kernel, c.case_name}, &c).second)
      throw std::runtime_error(fmt::format("run {} holds case {} more than once: which one to compare is not known", which,
                                           case_id(c.kernel, c.case_name)));
  return m;
}

bool passed(const CaseResult& c) { return c.status == Status::PASS || c.status == Status::XFAIL; }

bool hardware_limit(const CaseResult& c) { return c.status == Status::SKIP && find_reason(c.reason) && find_reason(c.reason)->hardware_limit; }

// A verdict the manifest declares for this device's arch (an expect with "arch"), where the
// other device passes: a difference of the devices (a wave64 assumption under warps of 32,
// say), as a HW_LIMIT on one of them is.
bool declared_for_one_device(const CaseResult& a, const CaseResult& b) {
  return (a.status == Status::XFAIL && b.status == Status::PASS) || (a.status == Status::PASS && b.status == Status::XFAIL);
}

ChangeKind kind_of(const CaseResult& a, const CaseResult& b) {
  if (hardware_limit(a) != hardware_limit(b) || declared_for_one_device(a, b)) return ChangeKind::device;
  if (passed(a) && !passed(b)) return ChangeKind::regression;
  if (!passed(a) && passed(b)) return ChangeKind::fix;
  return ChangeKind::other;
}

// NaN and Inf are not compared.
bool comparable(double a, double b) { return std::isfinite(a) && std::isfinite(b) && a >= 0 && b >= 0; }

// Thresholds: the worst error doubled and grew by more than a rounding step, or the kernel's
// median time moved by half (times under 20 us are launch noise).
// Kernel times are compared only between runs on the same kind of device.
void compare_metrics(const CaseResult& a, const CaseResult& b, bool same_device, std::vector<MetricChange>& out) {
  if (a.status != Status::PASS || b.status != Status::PASS) return;
  for (size_t i = 0; i < std::min(a.outputs.size(), b.outputs.size()); ++i) {
    const OutputMetrics &oa = a.outputs[i], &ob = b.outputs[i];
    const double ua = oa.max_ulps, ub = ob.max_ulps;
    if (comparable(ua, ub) && (ub > 2 * ua + 1 || ua > 2 * ub + 1)) out.push_back({a.kernel, a.case_name, oa.name + " max ulps", ua, ub});
    const double la = oa.rel_l2, lb = ob.rel_l2;
    if (comparable(la, lb) && std::max(la, lb) > 1e-6 && (lb > 2 * la || la > 2 * lb))
      out.push_back({a.kernel, a.case_name, oa.name + " rel L2", la, lb});
  }
  // Only --time's medians: the one launch every case times with a host clock varies from run to
  // run by more than the threshold (hundreds of "changes" between two runs of one H100).
  if (!same_device || !a.timing || !b.timing) return;
  const double ta = a.timing->median_ms, tb = b.timing->median_ms;
  if (ta > 0.02 && tb > 0.02 && (tb > 1.5 * ta || ta > 1.5 * tb)) out.push_back({a.kernel, a.case_name, "kernel ms", ta, tb});
}

std::string device_of(const RunInfo& r) { return r.spec.backend + "/" + (r.device ? r.device->name : std::string()); }

// What B lost against A (ResultsDiff::lost).
std::vector<std::string> losses(const ResultsDocument& a, const ResultsDocument& b, const std::map<CaseKey, const CaseResult*>& ib) {
  std::vector<std::string> lost;
  if (!b.run.interrupted.empty()) lost.push_back(fmt::format("B was interrupted by {}", b.run.interrupted));
  const std::set<std::string> errors_a(a.run.manifest_errors.begin(), a.run.manifest_errors.end());
  for (const std::string& e : b.run.manifest_errors)
    if (!errors_a.count(e)) lost.push_back("B has a manifest error A has not: " + e);
  const auto not_run_in_b = std::count_if(b.cases.begin(), b.cases.end(), [](const CaseResult& c) { return c.status == Status::NOT_RUN; });
  if (not_run_in_b) lost.push_back(fmt::format("{} case(s) of B are NOT_RUN", not_run_in_b));
  // Cases of A that B lacks are lost only when B took every case it had: a run of some kernels,
  // some cases or a shard did not lose the others (nor did a run of schema 1, whose selection is
  // not recorded).
  const SelectionSpec& took = b.run.spec.selection;
  if (b.schema_version < 2 || took != SelectionSpec{}) return lost;
  std::map<std::string, int> absent;  // per kernel
  for (const CaseResult& c : a.cases)
    if (!ib.count({c.kernel, c.case_name})) ++absent[c.kernel];
  for (const auto& [kernel, n] : absent) lost.push_back(fmt::format("kernel {}: {} case(s) of A are not in B", kernel, n));
  return lost;
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

bool fails_on(const ResultsDiff& d, const std::string& policy) {
  if (policy == "never") return false;
  if (policy == "change") return !d.changed.empty() || !d.lost.empty();
  if (policy == "regression") return d.count(ChangeKind::regression) > 0 || !d.lost.empty();
  throw std::invalid_argument("unknown --fail-on policy '" + policy + "' (regression, change or never)");
}

ResultsDiff diff_results(const ResultsDocument& a, const ResultsDocument& b) {
  ResultsDiff d;
  const auto ia = index(a, "A"), ib = index(b, "B");
  const bool same_device = device_of(a.run) == device_of(b.run);
  for (const auto& [key, ca] : ia) {
    const auto it = ib.find(key);
    if (it == ib.end()) {
      d.missing.push_back({key.first, key.second, verdict(*ca), "absent"});
      continue;
    }
    const CaseResult& cb = *it->second;
    if (not_run(*ca) || not_run(cb)) {
      d.missing.push_back({key.first, key.second, verdict(*ca), verdict(cb)});
      continue;
    }
    ++d.compared;
    if (verdict(*ca) != verdict(cb)) d.changed.push_back({key.first, key.second, verdict(*ca), verdict(cb), kind_of(*ca, cb)});
    else compare_metrics(*ca, cb, same_device, d.metrics);
  }
  for (const auto& [key, cb] : ib)
    if (!ia.count(key)) d.missing.push_back({key.first, key.second, "absent", verdict(*cb)});
  std::stable_sort(d.changed.begin(), d.changed.end(), [](const VerdictChange& x, const VerdictChange& y) { return x.kind < y.kind; });
  d.lost = losses(a, b, ib);
  return d;
}

}  // namespace hk
