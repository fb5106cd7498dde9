#include "refs/portable_normal.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "prelude/hk_input_values.h"

namespace hk {

// The arithmetic is hk_input_values.h's, shared with the device generator.
double minus_two_log(double u) { return hk_minus_two_log(u); }
void cos_sin_turn(double t, double* c, double* s) { hk_cos_sin_turn(t, c, s); }

namespace {

// Two plain loops of independent iterations: the processor overlaps the long polynomial chains
// of several elements, and the compiler vectorizes them (-O3 -fno-math-errno for this file).
// Every operation is the same IEEE one in the same order, so any vector width gives the same bits.
__attribute__((always_inline)) inline void normal_pairs_body(const double* __restrict u1, const double* __restrict u2,
                                                             double* __restrict a, double* __restrict b, size_t count) {
  for (size_t k = 0; k < count; ++k) a[k] = std::sqrt(hk_minus_two_log(1.0 - u1[k]));  // sqrt is rounded exactly by IEEE 754
  for (size_t k = 0; k < count; ++k) {
    double c, s;
    hk_cos_sin_turn(u2[k], &c, &s);
    b[k] = a[k] * s;
    a[k] = a[k] * c;
  }
}

__attribute__((target("avx2"))) void normal_pairs_avx2(const double* u1, const double* u2, double* a, double* b, size_t count) {
  normal_pairs_body(u1, u2, a, b, count);
}

}  // namespace

void normal_pairs_baseline(const double* u1, const double* u2, double* a, double* b, size_t count) {
  normal_pairs_body(u1, u2, a, b, count);
}

void normal_pairs(const double* u1, const double* u2, double* a, double* b, size_t count) {
  static const bool avx2 = __builtin_cpu_supports("avx2");  // 4 doubles a step, about 2x
  if (avx2) normal_pairs_avx2(u1, u2, a, b, count);
  else normal_pairs_baseline(u1, u2, a, b, count);
}

}  // namespace hk
