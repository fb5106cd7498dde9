// The Box-Muller transform with its logarithm, sine and cosine written out as polynomials of
// +, -, *, / and sqrt, which IEEE 754 rounds exactly: the same bits on every machine and C
// library (std::log and std::cos may differ in the last bit), and several times faster. This
// file and generator.cpp are compiled with -ffp-contract=off, so that no compiler fuses a
// multiply and an add into one rounding on a machine that has the instruction.
#pragma once

#include <cstddef>

namespace hk {

// -2 ln(u) for u in (0, 1] (a normal double), within a few ulps of the exact value.
double minus_two_log(double u);

// cos and sin of 2 pi t for t in [0, 1), within a few ulps.
void cos_sin_turn(double t, double* c, double* s);

// Standard normal pairs: a[k] = r cos(2 pi u2[k]) and b[k] = r sin(2 pi u2[k]) with
// r = sqrt(-2 ln(1 - u1[k])), for k < count (u1, u2 in [0, 1)). a and b may not alias u1 or u2.
// Uses the processor's wider vector unit where it has one, with the same bits as without.
void normal_pairs(const double* u1, const double* u2, double* a, double* b, size_t count);

// normal_pairs built for the baseline instruction set only: what tests compare it with.
void normal_pairs_baseline(const double* u1, const double* u2, double* a, double* b, size_t count);

}  // namespace hk
