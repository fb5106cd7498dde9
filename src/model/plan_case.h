// How a case is planned: one case of a kernel's manifest made concrete (model/case_plan.h).
#pragma once

#include <vector>

#include "model/case_plan.h"
#include "model/manifest.h"

namespace hk {

// Throws PlanError naming the JSON path of the offending field. style: where the project rules
// a case breaks without being wrong go (a loosened tolerance without "why"), each naming its JSON
// path; null: not looked for. Whether they are errors is the loader's choice (--strict).
CasePlan plan_case(const KernelSpec& k, const CaseSpec& c, std::vector<PlanError>* style = nullptr);

}  // namespace hk
