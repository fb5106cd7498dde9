#include "model/expectation.h"

#include "platform/backend_table.h"
#include "model/status.h"

#include <fmt/format.h>

namespace hk {

const std::vector<std::string>& expectable_statuses() {
  static const std::vector<std::string> kNames = {"FAIL", "CRASH", "TIMEOUT", "COMPILE_ERROR", "ERROR", "FLAKY", "LEAK", reason_name(Reason::HW_LIMIT), reason_name(Reason::TOO_LARGE)};
  return kNames;
}

std::optional<ExpectedVerdict> expectation_for(const std::vector<ExpectedVerdict>& declared, const std::string& device_arch, bool host) {
  // An expectation for this very arch wins over one for the host backend, which wins over one for every device.
  for (const ExpectedVerdict& e : declared)
    if (!e.arch.empty() && e.arch == device_arch) return e;
  for (const ExpectedVerdict& e : declared)
    if (host && e.arch == host_backend().name) return e;
  for (const ExpectedVerdict& e : declared)
    if (e.arch.empty()) return e;
  return std::nullopt;
}

std::optional<ExpectedVerdict> case_expectation(const KernelSpec& k, const CaseSpec& c, const std::string& device_arch, bool host) {
  if (auto e = expectation_for(c.expect, device_arch, host)) return e;
  return expectation_for(k.expect, device_arch, host);
}

}  // namespace hk
