// Verdicts a manifest declares a case is known to reach ("expect"), and how the parent turns a
// case's result into XFAIL (it went wrong as declared), XPASS (it passed: the manifest is out of
// date) or, for any other verdict, that verdict with a note saying what was expected.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/manifest.h"
#include "contracts/result.h"

namespace hk {

// The verdicts "expect.status" may name: statuses that fail a run, and SKIP reasons.
const std::vector<std::string>& expectable_statuses();

// The name a result's verdict goes by in "expect.status": its status, or for a SKIP its reason.
std::string verdict_name(const CaseResult& r);

// The arch an expectation names to apply on the host backend under every profile: for what only
// the host's stricter rules show (a collective reading lanes that returned), undefined on a GPU.
inline constexpr const char* kHostArch = "host";

// The expectation that applies on a device of this arch (host: the host backend's), if any: one
// for the arch itself first, then "host" on the host backend, then one without an arch.
std::optional<ExpectedVerdict> expectation_for(const std::vector<ExpectedVerdict>& declared, const std::string& device_arch,
                                               bool host = false);

// For one case: the case's own declarations first, then its kernel's.
std::optional<ExpectedVerdict> case_expectation(const KernelSpec& k, const CaseSpec& c, const std::string& device_arch, bool host = false);

// Applies an expectation to a result that arrived from a worker (or from the parent, for CRASH
// and TIMEOUT). Without an expectation the result is returned unchanged.
CaseResult apply_expectation(CaseResult r, const std::optional<ExpectedVerdict>& expected);

}  // namespace hk
