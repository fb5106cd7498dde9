#include "check/apply_expectation.h"

#include <fmt/format.h>

namespace hk {

std::string verdict_name(const CaseResult& r) {
  if (r.status == Status::SKIP && !r.reason.empty()) return r.reason;
  return status_name(r.status);
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
