// Seeded input data. The stream is defined here (splitmix64, Box-Muller with portable_normal.h's
// polynomials), not by the standard or C library, so the same seed gives the same data on every
// platform and compiler, whatever the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/case_plan.h"
#include "model/dtype.h"

namespace hk {

// The version of the values generate() and tensor_seed() give for a seed (with the dtype
// rounding they are stored with): whatever is keyed by a case's inputs (the reference cache)
// holds this in its key. Bump it with any change to the values; tests/generator_test.cpp pins
// them and fails until the pin is updated with the version.
constexpr int kInputGenerationVersion = 2;

// A seed for one tensor of one case: the same whatever other cases run or in which order.
uint64_t tensor_seed(uint64_t run_seed, const std::string& kernel, const std::string& case_name, const std::string& tensor);

// An element-wise kind with its fields resolved (defaults filled in): each element a function of
// its index and the seed alone, so that any range of a tensor, on any thread or device
// (device_inputs.h), is made on its own.
enum class ElementwiseKind { normal, uniform, integer, arange, constant };
struct ElementwiseGenerator {
  ElementwiseKind kind;
  double a = 0, b = 0, c = 0;  // normal: mean, std; uniform and int: low, high; arange: start, step, mod; constant: value
  bool has_mod = false;        // arange: whether mod applies
};
// The plan's element-wise form; nullopt for the kinds that need the whole tensor at once
// (permutation, values). Throws std::runtime_error for an unknown kind or an int's high < low.
std::optional<ElementwiseGenerator> elementwise_generator(const GeneratorPlan& g);

// Elements [first, first + n) of the tensor in their device bytes (first even, so a pair stays
// whole): bytes [storage_bytes(first), ...) of what generate_packed gives for a longer tensor.
std::vector<uint8_t> generate_packed_range(const ElementwiseGenerator& g, DType dtype, int64_t first, int64_t n, uint64_t seed);

// n values in double precision (not yet rounded to any dtype).
std::vector<double> generate(const GeneratorPlan& g, int64_t n, uint64_t seed);

// The same n values rounded to dtype, written to out[0, n) in one parallel pass: what a case's
// input holds. Throws std::runtime_error for a plan it cannot make.
void generate_into(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed, double* out);

// The same values straight in the dtype's device bytes (what pack(dtype, generate_into(...))
// gives), without a vector of doubles: the inputs a kernel gets, made in one parallel pass.
std::vector<uint8_t> generate_packed(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed);

}  // namespace hk
