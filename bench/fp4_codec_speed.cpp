// fp4 e2m1 rounding: the generic minifloat codec against the comparison codec, on the same
// 16M uniform values in one run; prints both times and the ratio (and checks the codes agree).
//   g++ -O2 -std=c++17 -Isrc bench/fp4_codec_speed.cpp -o /tmp/fp4_codec_speed && /tmp/fp4_codec_speed
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "model/fp4_codec.h"
#include "prelude/hk_minifloat.h"

int main() {
  std::vector<double> values(size_t{1} << 24);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> weights(-6.5, 6.5);  // the MoE fp4 weights' range
  for (double& v : values) v = weights(rng);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  unsigned long long generic = 0, fast = 0;
  for (double v : values) generic += hk_encode_float<double>(v, HK_FMT_E2M1);
  const auto t1 = Clock::now();
  for (double v : values) fast += hk::fp4_encode(v);
  const auto t2 = Clock::now();
  const double a = std::chrono::duration<double>(t1 - t0).count(), b = std::chrono::duration<double>(t2 - t1).count();
  std::printf("fp4 encode of %zu values: generic %.3f s, comparisons %.3f s: %.1fx%s\n", values.size(), a, b, a / b,
              generic == fast ? "" : "  (CODES DIFFER)");
  return generic == fast ? 0 : 1;
}
