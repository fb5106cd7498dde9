// Seeded input data. The stream is defined here (splitmix64, Box-Muller), not by the standard
// library, so the same seed gives the same data on every platform and compiler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case_plan.h"

namespace hk {

// The version of the values generate() and tensor_seed() produce. Bump it whenever the generated
// values change: cached reference outputs are keyed by it (reference_cache.h), so a change
// without a bump would compare kernels with references computed on other inputs.
constexpr int kInputGenerationVersion = 1;

// A seed for one tensor of one case: the same whatever other cases run or in which order.
uint64_t tensor_seed(uint64_t run_seed, const std::string& kernel, const std::string& case_name, const std::string& tensor);

// n values in double precision (not yet rounded to any dtype).
std::vector<double> generate(const GeneratorPlan& g, int64_t n, uint64_t seed);

}  // namespace hk
