// How the parent turns a case's result into XFAIL (it went wrong as the manifest declared), XPASS
// (it passed: the manifest is out of date) or, for any other verdict, that verdict with a note
// saying what was expected (the declarations: model/expectation.h).
#pragma once

#include <optional>
#include <string>

#include "contracts/result.h"
#include "model/expectation.h"

namespace hk {

// The name a result's verdict goes by in "expect.status": its status, or for a SKIP its reason.
std::string verdict_name(const CaseResult& r);

// Applies an expectation to a result that arrived from a worker (or from the parent, for CRASH
// and TIMEOUT). Without an expectation the result is returned unchanged.
CaseResult apply_expectation(CaseResult r, const std::optional<ExpectedVerdict>& expected);

}  // namespace hk
