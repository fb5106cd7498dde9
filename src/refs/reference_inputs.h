// The Context a case's reference runs on: the case's parameters, its input tensors generated from
// their seeds and rounded to their dtypes (exactly what the kernel sees), and its outputs armed
// with guards (reference_guard.h). One definition for runs and for the reference bench.
//
// A run makes the inputs in their device bytes first (what the kernel is given) and decodes them
// into the Context's doubles only when something reads them: the reference, when its outputs are
// not read back from the cache, or a check that looks at an input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "contracts/case_job.h"
#include "refs/derived_inputs.h"
#include "refs/reference_context_parts.h"
#include "reference.h"

namespace hk {

// The device bytes of every input and inout tensor of the plan, by tensor index (outputs empty),
// but for those `skip` marks (made elsewhere: device_inputs.h), left empty too. Derived tensors
// (derived_inputs.h) read their runs back from `derived` where it holds them, and keep them there.
std::vector<std::vector<uint8_t>> packed_inputs(const CaseJob& job, const std::vector<bool>* skip = nullptr,
                                                const DerivedRunCache& derived = {});

// The seed of the job's tensor t.
uint64_t input_seed(const CaseJob& job, const TensorPlan& t);

// The Context without input values: parameters, outputs armed, inout tensors sized (their values
// come from decode_inputs or the reference cache), inputs empty.
ref::Context context_without_inputs(const CaseJob& job);

// Decodes the packed inputs into ctx: every in and inout tensor, or the in tensors `only` marks.
void decode_inputs(const CasePlan& plan, const std::vector<std::vector<uint8_t>>& packed, ref::Context& ctx,
                   const std::vector<bool>* only = nullptr);

// All of it at once: what the reference bench runs on.
ref::Context reference_context(const CaseJob& job);

}  // namespace hk
