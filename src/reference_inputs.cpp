#include "reference_inputs.h"

#include <cmath>

#include "dtype.h"
#include "first_touch.h"
#include "generator.h"
#include "reference_guard.h"
#include "reference_threads.h"
#include "runtime_references.h"

namespace hk {

ref::Context reference_context(const CaseJob& job) {
  const CasePlan& plan = job.plan;
  ref::Context ctx;
  ctx.round_dtype = round_for_reference;
  ctx.threads = reference_threads();
  for (const auto& [name, v] : plan.params) {
    if (const auto* d = std::get_if<double>(&v)) ctx.numbers[name] = *d;
    else ctx.strings[name] = std::get<std::string>(v);
  }
  for (const TensorPlan& t : plan.tensors) {
    ref::Tensor rt{t.name, dtype_name(t.dtype), t.shape, {}};
    if (t.role == Role::out) {
      arm_reference_guard(rt.data, static_cast<size_t>(t.numel), std::nan(""));
    } else {
      rt.data = touched_vector<double>(static_cast<size_t>(t.numel));
      try {
        generate_into(t.init, t.dtype, t.numel, tensor_seed(job.seed, job.kernel, job.stream_name, t.name), rt.data.data());
      } catch (const std::exception& e) {
        throw InputError("tensor '" + t.name + "': " + e.what());
      }
    }
    ctx.tensors[t.name] = std::move(rt);
  }
  return ctx;
}

}  // namespace hk
