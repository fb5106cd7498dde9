#include "worker/empty_case.h"
#include "model/status.h"

#include <algorithm>

namespace hk {

bool every_tensor_empty(const CasePlan& plan) {
  return std::all_of(plan.tensors.begin(), plan.tensors.end(), [](const TensorPlan& t) { return t.numel == 0; });
}

void skip_empty_case(CaseResult& r) {
  r.status = Status::SKIP;
  r.reason = reason_name(Reason::EMPTY_CASE);
  r.message = "every tensor of this case has zero elements: nothing was compared, so it proves nothing (the launch wrote "
              "nothing outside the tensors)";
}

}  // namespace hk
