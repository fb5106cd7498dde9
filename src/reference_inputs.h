// The Context a case's reference runs on: the case's parameters, its input tensors generated from
// their seeds and rounded to their dtypes (exactly what the kernel sees), and its outputs armed
// with guards (reference_guard.h). One definition for runs and for the reference bench.
#pragma once

#include <stdexcept>
#include <string>

#include "case_job.h"
#include "reference.h"

namespace hk {

// Thrown when a tensor's values cannot be generated: what names the tensor, not the manifest.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Spreads generation over parallel_threads(); the reference's threads are reference_threads().
ref::Context reference_context(const CaseJob& job);

}  // namespace hk
