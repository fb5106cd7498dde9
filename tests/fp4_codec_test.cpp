// The fp4 fast codec must give the generic minifloat codec's bits for every double: midpoints
// and their neighbours, both zeros, saturation, infinities, NaN, and a dense random sweep.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "model/dtype.h"
#include "model/fp4_codec.h"
#include "prelude/hk_minifloat.h"

namespace {

unsigned generic_code(double v) { return hk_encode_float<double>(v, HK_FMT_E2M1); }

TEST(Fp4Codec, EncodesAsTheGenericCodecDoes) {
  std::vector<double> probes = {0.0, -0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(), 1e-300, -1e-300, 12.0, 13.0, 1e300};
  const double points[] = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0};
  for (double p : points)
    for (double x : {p, std::nextafter(p, 0.0), std::nextafter(p, 100.0)}) {
      probes.push_back(x);
      probes.push_back(-x);
    }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> wide(-14.0, 14.0);
  for (int i = 0; i < 200000; ++i) probes.push_back(wide(rng));
  for (double v : probes) ASSERT_EQ(hk::fp4_encode(v), generic_code(v)) << "v = " << v;
}

TEST(Fp4Codec, DecodesEveryCodeAsTheGenericCodecDoes) {
  for (unsigned code = 0; code < 16; ++code) {
    const uint8_t byte = static_cast<uint8_t>(code | 0xA0u);  // the other nibble of the byte must not count
    const double fast = hk::decode(hk::DType::fp4e2m1, &byte), generic = hk_decode_float<double>(code, HK_FMT_E2M1);
    EXPECT_EQ(fast, generic) << "code " << code;
    EXPECT_EQ(std::signbit(fast), std::signbit(generic)) << "code " << code;
  }
}

}  // namespace
