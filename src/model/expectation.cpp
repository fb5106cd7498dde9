#include "model/expectation.h"

#include <fmt/format.h>

namespace hk {

const std::vector<std::string>& expectable_statuses() {
  static const std::vector<std::string> kNames = {"FAIL", "CRASH", "TIMEOUT", "COMPILE_ERROR", "ERROR", "FLAKY", "LEAK", "HW_LIMIT", "TOO_LARGE"};
  return kNames;
}

std::string verdict_name(const CaseResult& r) {
  if (r.status == Status::SKIP && !r.reason.empty()) return r.reason;
  return status_name(r.status);
}

std::optional<ExpectedVerdict> expectation_for(const std::vector<ExpectedVerdict>& declared, const std::string& device_arch, bool host) {
  // An expectation for this very arch wins over one for the host backend, which wins over one for every device.
  for (const ExpectedVerdict& e : declared)
    if (!e.arch.empty() && e.arch == device_arch) return e;
  for (const ExpectedVerdict& e : declared)
    if (host && e.arch == kHostArch) return e;
  for (const ExpectedVerdict& e : declared)
    if (e.arch.empty()) return e;
  return std::nullopt;
}

std::optional<ExpectedVerdict> case_expectation(const KernelSpec& k, const CaseSpec& c, const std::string& device_arch, bool host) {
  if (auto e = expectation_for(c.expect, device_arch, host)) return e;
  return expectation_for(k.expect, device_arch, host);
}

CaseResult apply_expectation(CaseResult r, const std::optional<ExpectedVerdict>& expected) {
  if (!expected) return r;
  r.expected = expected;
  const std::string why = expected->why.empty() ? "" : " (" + expected->why + ")";
  if (r.status == Status::PASS) {
    r.actual_status = r.status;
    r.status = Status::XPASS;
    r.notes.push_back(fmt::format("expected {}{} but the case passed: update the manifest's \"expect\"", expected->status, why));
    return r;
  }
  if (verdict_name(r) == expected->status) {
    r.actual_status = r.status;
    r.status = Status::XFAIL;
    r.notes.push_back(fmt::format("expected {}{}", expected->status, why));
    return r;
  }
  r.notes.push_back(fmt::format("expected {}{} but the verdict is {}", expected->status, why, verdict_name(r)));
  return r;
}

}  // namespace hk
