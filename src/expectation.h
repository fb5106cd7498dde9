// Verdicts a manifest declares a case is known to reach ("expect"), and how the parent turns a
// case's result into XFAIL (it went wrong as declared), XPASS (it passed: the manifest is out of
// date) or, for any other verdict, that verdict with a note saying what was expected.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "manifest.h"
#include "result.h"

namespace hk {

// The verdicts "expect.status" may name: statuses that fail a run, and SKIP reasons.
const std::vector<std::string>& expectable_statuses();

// The name a result's verdict goes by in "expect.status": its status, or for a SKIP its reason.
std::string verdict_name(const CaseResult& r);

// The expectation that applies on a device of this arch, if any (arch empty matches every device).
std::optional<ExpectedVerdict> expectation_for(const std::vector<ExpectedVerdict>& declared, const std::string& device_arch);

// For one case: the case's own declarations first, then its kernel's.
std::optional<ExpectedVerdict> case_expectation(const KernelSpec& k, const CaseSpec& c, const std::string& device_arch);

// Applies an expectation to a result that arrived from a worker (or from the parent, for CRASH
// and TIMEOUT). Without an expectation the result is returned unchanged.
CaseResult apply_expectation(CaseResult r, const std::optional<ExpectedVerdict>& expected);

}  // namespace hk
