// What every reference run starts from, a case's own (reference_inputs.h) and a derived tensor's
// (derived_inputs.h) alike: a Context with the plan's parameters, and a tensor's device bytes as
// the doubles a reference reads.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "model/case_plan.h"
#include "reference.h"

namespace hk {

// Thrown when a tensor's values cannot be generated: what names the tensor, not the manifest.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A Context holding the plan's parameters only, with the rounding and threads every reference
// run gets: what a case's and a derived tensor's runs (derived_inputs.h) start from.
ref::Context context_with_params(const CasePlan& plan);

// Tensor t's device bytes decoded into v (sized to t's elements first when it is not), on
// several threads.
void decode_tensor(const TensorPlan& t, const std::vector<uint8_t>& bytes, std::vector<double>& v);

}  // namespace hk
