// Seeded input data. The stream is defined here (splitmix64, Box-Muller with portable_normal.h's
// polynomials), not by the standard or C library, so the same seed gives the same data on every
// platform and compiler, whatever the thread count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case_plan.h"
#include "dtype.h"

namespace hk {

// The version of the values generate() and tensor_seed() give for a seed (with the dtype
// rounding they are stored with): whatever is keyed by a case's inputs (the reference cache)
// holds this in its key. Bump it with any change to the values; tests/generator_test.cpp pins
// them and fails until the pin is updated with the version.
constexpr int kInputGenerationVersion = 2;

// A seed for one tensor of one case: the same whatever other cases run or in which order.
uint64_t tensor_seed(uint64_t run_seed, const std::string& kernel, const std::string& case_name, const std::string& tensor);

// n values in double precision (not yet rounded to any dtype).
std::vector<double> generate(const GeneratorPlan& g, int64_t n, uint64_t seed);

// The same n values rounded to dtype, written to out[0, n) in one parallel pass: what a case's
// input holds. Throws std::runtime_error for a plan it cannot make.
void generate_into(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed, double* out);

// The same values straight in the dtype's device bytes (what pack(dtype, generate_into(...))
// gives), without a vector of doubles: the inputs a kernel gets, made in one parallel pass.
std::vector<uint8_t> generate_packed(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed);

}  // namespace hk
