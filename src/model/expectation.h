// Verdicts a manifest declares a case is known to reach ("expect"), and which declaration applies
// on a device; check/apply_expectation.h turns a result into XFAIL or XPASS by it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/manifest.h"

namespace hk {

// The verdicts "expect.status" may name: statuses that fail a run, and SKIP reasons.
const std::vector<std::string>& expectable_statuses();

// The expectation that applies on a device of this arch (host: the host backend's), if any: one
// for the arch itself first, then the host backend's name on the host backend (under every profile:
// for what only the host's stricter rules show, a collective reading lanes that returned,
// undefined on a GPU), then one without an arch.
std::optional<ExpectedVerdict> expectation_for(const std::vector<ExpectedVerdict>& declared, const std::string& device_arch,
                                               bool host = false);

// For one case: the case's own declarations first, then its kernel's.
std::optional<ExpectedVerdict> case_expectation(const KernelSpec& k, const CaseSpec& c, const std::string& device_arch, bool host = false);

}  // namespace hk
