// Derived tensors (docs/manifest.md, "Derived tensors"): inputs whose values come from a reference
// run on the case's other inputs, such as a backward kernel's out and lse from the forward pass
// over the same q, k, v. A backward pass fed random out and lse never sees real softmax rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contracts/case_job.h"

namespace hk {

class ReferenceCache;

// Fills packed[i] of every derived tensor i of the job's plan, given the device bytes of all the
// others: one run per reference named, on a Context holding the case's params, its in and inout
// tensors that are not derived (decoded from packed, exactly the kernel's values) and, as
// outputs, one tensor per derived one, named by its `output` and sized by it; each output is then
// rounded to its tensor's dtype. Throws InputError naming the tensor and the init field when the
// reference cannot be loaded, fails, or its output does not have the tensor's element count.
// Where the runs' outputs are read back from and kept: under the case's own reference-output key
// (reference_cache_key, everything its outputs depend on) and the run's reference name. No cache
// or an empty key runs every time; a damaged entry adds a note to *notes.
struct DerivedRunCache {
  ReferenceCache* cache = nullptr;
  std::string case_key;
  std::vector<std::string>* notes = nullptr;
};
void fill_derived_inputs(const CaseJob& job, std::vector<std::vector<uint8_t>>& packed, const DerivedRunCache& cache = {});

}  // namespace hk
