// A case whose tensors all have zero elements compares nothing: a PASS there would count a kernel
// as proven on no data. It still runs, so a write outside the tensors fails it as anywhere else;
// the PASS it would get becomes SKIP EMPTY_CASE.
#pragma once

#include "model/case_plan.h"
#include "contracts/result.h"

namespace hk {


bool every_tensor_empty(const CasePlan& plan);
// A passing result of such a case: SKIP EMPTY_CASE, saying why.
void skip_empty_case(CaseResult& r);

}  // namespace hk
