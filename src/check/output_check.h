// How an output is judged (docs/manifest.md, "How an output is judged"): by one comparison
// (elementwise unless the manifest's "compare" names another) and any extra checks (dequant).
// A rule's fields and plan are model/check_rule.h's; how it judges the kernel's bytes is one row
// of the table in output_check.cpp and one file in check/rules/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "check/check_input.h"
#include "model/check_rule.h"

namespace hk {

struct CasePlan;
struct CaseResult;
struct OutputMetrics;
struct Tolerance;

// Whether check/ can judge by rule `name` (every rule of model/check_rule.h can: a test holds it).
bool can_judge_by(const std::string& name);

// Judges output `out` by its comparison rule, then by each extra check; pass is output_passes.
OutputMetrics judge_output(const CheckInput& in);

// Whether an output passes by its own figures: its comparison within tol (within_tolerance,
// metrics.h) and every extra check passed.
bool output_passes(const OutputMetrics& m, const Tolerance& tol);
// A judged case PASSes when every output passes and no guard was touched, else it FAILs (unless
// launches that disagree make it FLAKY: case_exec.cpp).
bool case_passes(const CaseResult& r);

// The same rule read back: what in a judged record (PASS, FAIL or FLAKY) contradicts its
// verdict or the case's plan, or "" when nothing does. The parent checks every record a worker
// sends with it: a PASS whose outputs fail, were never written, hold NaN beyond tolerance or
// breached a guard; an output marked passing against its figures; outputs that are not the plan's.
std::string verdict_contradiction(const CaseResult& r, const CasePlan& plan);

}  // namespace hk
