#include "refs/reference_inputs.h"

#include <cmath>

#include "refs/derived_inputs.h"
#include "model/dtype.h"
#include "util/first_touch.h"
#include "refs/generator.h"
#include "util/parallel_for.h"
#include "refs/reference_guard.h"
#include "refs/reference_threads.h"
#include "refs/runtime_references.h"

namespace hk {

uint64_t input_seed(const CaseJob& job, const TensorPlan& t) { return tensor_seed(job.seed, job.kernel, job.stream_name, t.name); }

std::vector<std::vector<uint8_t>> packed_inputs(const CaseJob& job, const std::vector<bool>* skip, const DerivedRunCache& derived) {
  const CasePlan& plan = job.plan;
  std::vector<std::vector<uint8_t>> packed(plan.tensors.size());
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    // Derived ones come from the others, below; those `skip` marks are made elsewhere.
    if (t.role == Role::out || t.init.derived() || (skip && (*skip)[i])) continue;
    try {
      packed[i] = generate_packed(t.init, t.dtype, t.numel, input_seed(job, t));
    } catch (const std::exception& e) {
      throw InputError("tensor '" + t.name + "': " + e.what());
    }
  }
  fill_derived_inputs(job, packed, derived);
  return packed;
}

ref::Context context_without_inputs(const CaseJob& job) {
  const CasePlan& plan = job.plan;
  ref::Context ctx = context_with_params(plan);
  for (const TensorPlan& t : plan.tensors) {
    ref::Tensor rt{t.name, dtype_name(t.dtype), t.shape, {}};
    if (t.role == Role::out) arm_reference_guard(rt.data, static_cast<size_t>(t.numel), std::nan(""));
    else if (t.role == Role::inout) rt.data = touched_vector<double>(static_cast<size_t>(t.numel));
    ctx.tensors[t.name] = std::move(rt);
  }
  return ctx;
}

void decode_inputs(const CasePlan& plan, const std::vector<std::vector<uint8_t>>& packed, ref::Context& ctx, const std::vector<bool>* only) {
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    if (t.role == Role::out || (only && (t.role != Role::in || !(*only)[i]))) continue;
    decode_tensor(t, packed[i], ctx.tensors.at(t.name).data);
  }
}

ref::Context reference_context(const CaseJob& job) {
  ref::Context ctx = context_without_inputs(job);
  decode_inputs(job.plan, packed_inputs(job), ctx);
  return ctx;
}

}  // namespace hk
