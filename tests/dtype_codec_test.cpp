// The fast paths of encode/decode (dtype.cpp) against the general minifloat code of the prelude,
// bit for bit: every pattern, every midpoint between neighbours (ties to even), and random
// values over the whole range including subnormals and overflow.
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <random>

#include "model/dtype.h"
#include "hk_minifloat.h"

namespace hk {
namespace {

struct Format {
  DType type;
  HkFloatFormat f;
};
const Format kFormats[] = {{DType::f16, HK_FMT_F16}, {DType::bf16, HK_FMT_BF16}, {DType::fp8e4m3, HK_FMT_E4M3}, {DType::fp8e5m2, HK_FMT_E5M2}};

unsigned encoded(DType t, double v) {
  uint8_t buf[8] = {};
  encode(t, v, buf);
  return dtype_size(t) == 2 ? static_cast<unsigned>(buf[0] | (buf[1] << 8)) : buf[0];
}

void expect_same_encoding(const Format& fm, double v) {
  ASSERT_EQ(encoded(fm.type, v), hk_encode_float<double>(v, fm.f)) << dtype_name(fm.type) << " of " << v;
}

TEST(DtypeCodec, DecodeMatchesTheGeneralCodeForEveryPattern) {
  for (const Format& fm : kFormats) {
    const unsigned patterns = 1u << (fm.f.ebits + fm.f.mbits + 1);
    for (unsigned bits = 0; bits < patterns; ++bits) {
      uint8_t buf[2] = {static_cast<uint8_t>(bits), static_cast<uint8_t>(bits >> 8)};
      const double want = hk_decode_float<double>(bits, fm.f), got = decode(fm.type, buf);
      if (std::isnan(want)) ASSERT_TRUE(std::isnan(got)) << dtype_name(fm.type) << " pattern " << bits;
      else ASSERT_EQ(std::memcmp(&want, &got, 8), 0) << dtype_name(fm.type) << " pattern " << bits << ": " << got << " vs " << want;
    }
  }
}

TEST(DtypeCodec, EncodeMatchesAtEveryValueAndEveryMidpoint) {
  for (const Format& fm : kFormats) {
    const unsigned half = 1u << (fm.f.ebits + fm.f.mbits);  // positive patterns
    for (unsigned bits = 0; bits + 1 < half; ++bits) {
      const double x = hk_decode_float<double>(bits, fm.f), y = hk_decode_float<double>(bits + 1, fm.f);
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      const double mid = (x + y) / 2;
      for (double v : {x, y, mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY)}) {
        expect_same_encoding(fm, v);
        expect_same_encoding(fm, -v);
      }
    }
  }
}

TEST(DtypeCodec, EncodeMatchesOnRandomValuesAndSpecials) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-160, 140), mantissa(1, 2);
  for (const Format& fm : kFormats) {
    for (int i = 0; i < 200000; ++i) {
      const double v = std::ldexp(mantissa(rng), static_cast<int>(exponent(rng))) * (i % 2 ? -1 : 1);
      expect_same_encoding(fm, v);
    }
    for (double v : std::initializer_list<double>{0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-300, 65504.0, 65520.0, 448.0, 464.0, 57344.0, 3.4e38, 3.3961775292e38})
      expect_same_encoding(fm, v);
  }
}

}  // namespace
}  // namespace hk
