#include "model/dtype.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace hk {
namespace {

unsigned bits_of(DType t, double v) {
  uint8_t buf[8] = {};
  encode(t, v, buf);
  unsigned b = 0;
  std::memcpy(&b, buf, dtype_size(t));
  return b;
}

double from_bits(DType t, unsigned b) { return decode(t, &b); }

TEST(Dtype, ParsesNamesAndSizes) {
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("fp8e4m3"), DType::fp8e4m3);
  EXPECT_FALSE(parse_dtype("bfloat16").has_value());
  EXPECT_EQ(dtype_size(DType::fp8e5m2), 1u);
  EXPECT_EQ(dtype_size(DType::i64), 8u);
}

TEST(Dtype, Bf16KnownPatternsAndTiesToEven) {
  EXPECT_EQ(bits_of(DType::bf16, 1.0), 0x3F80u);
  EXPECT_EQ(bits_of(DType::bf16, -2.0), 0xC000u);
  EXPECT_EQ(bits_of(DType::bf16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);      // tie -> even (down)
  EXPECT_EQ(bits_of(DType::bf16, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82u);  // tie -> even (up)
  EXPECT_EQ(bits_of(DType::bf16, 1.0 + std::ldexp(1.0, -8) + 1e-12), 0x3F81u);  // above the tie
  EXPECT_EQ(bits_of(DType::bf16, INFINITY), 0x7F80u);
  EXPECT_EQ(bits_of(DType::bf16, 3.5e38), 0x7F80u);  // overflows to Inf
  EXPECT_TRUE(std::isnan(from_bits(DType::bf16, bits_of(DType::bf16, NAN))));
  EXPECT_EQ(bits_of(DType::bf16, std::ldexp(1.0, -133)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(bits_of(DType::bf16, -0.0), 0x8000u);
}

TEST(Dtype, F16KnownPatterns) {
  EXPECT_EQ(bits_of(DType::f16, 1.0), 0x3C00u);
  EXPECT_EQ(bits_of(DType::f16, 65504.0), 0x7BFFu);
  EXPECT_EQ(bits_of(DType::f16, 65519.0), 0x7BFFu);
  EXPECT_EQ(bits_of(DType::f16, 65520.0), 0x7C00u);  // rounds up to Inf
  EXPECT_EQ(bits_of(DType::f16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(bits_of(DType::f16, std::ldexp(1.0, -25)), 0x0000u);  // tie with 0 -> even
  EXPECT_EQ(bits_of(DType::f16, std::ldexp(3.0, -26)), 0x0001u);
  EXPECT_EQ(bits_of(DType::f16, 0.1), 0x2E66u);
  EXPECT_DOUBLE_EQ(from_bits(DType::f16, 0x3555u), 0.333251953125);
}

TEST(Dtype, Fp8E4m3SaturatesAndHasOneNan) {
  EXPECT_EQ(bits_of(DType::fp8e4m3, 1.0), 0x38u);
  EXPECT_EQ(bits_of(DType::fp8e4m3, 448.0), 0x7Eu);
  EXPECT_EQ(bits_of(DType::fp8e4m3, 1e6), 0x7Eu);   // saturates to max finite
  EXPECT_EQ(bits_of(DType::fp8e4m3, -1e6), 0xFEu);
  EXPECT_EQ(bits_of(DType::fp8e4m3, std::ldexp(1.0, -9)), 0x01u);  // smallest subnormal
  EXPECT_EQ(bits_of(DType::fp8e4m3, NAN), 0x7Fu);
  EXPECT_TRUE(std::isnan(from_bits(DType::fp8e4m3, 0x7F)));
  EXPECT_TRUE(std::isnan(from_bits(DType::fp8e4m3, 0xFF)));
  EXPECT_DOUBLE_EQ(from_bits(DType::fp8e4m3, 0x78), 256.0);  // exponent 15 is a normal binade
  EXPECT_DOUBLE_EQ(from_bits(DType::fp8e4m3, 0x7E), 448.0);
}

TEST(Dtype, Fp8E5m2KnownPatterns) {
  EXPECT_EQ(bits_of(DType::fp8e5m2, 1.0), 0x3Cu);
  EXPECT_EQ(bits_of(DType::fp8e5m2, 57344.0), 0x7Bu);
  EXPECT_EQ(bits_of(DType::fp8e5m2, 1e6), 0x7Cu);  // overflows to Inf
  EXPECT_EQ(bits_of(DType::fp8e5m2, std::ldexp(1.0, -16)), 0x01u);
  EXPECT_TRUE(std::isinf(from_bits(DType::fp8e5m2, 0x7C)));
  EXPECT_TRUE(std::isnan(from_bits(DType::fp8e5m2, 0x7E)));
}

// Every finite pattern of the small formats survives decode -> encode unchanged.
TEST(Dtype, EveryPatternRoundTrips) {
  for (DType t : {DType::f16, DType::bf16, DType::fp8e4m3, DType::fp8e5m2}) {
    const unsigned n = 1u << (8 * dtype_size(t));
    for (unsigned b = 0; b < n; ++b) {
      const double v = from_bits(t, b);
      if (std::isnan(v)) continue;
      ASSERT_EQ(bits_of(t, v), b) << dtype_name(t) << " pattern " << b;
    }
  }
}

// Exhaustive midpoints: a value halfway between neighbours rounds to the even one.
TEST(Dtype, MidpointsRoundToEven) {
  for (DType t : {DType::f16, DType::fp8e4m3, DType::fp8e5m2}) {
    const unsigned n = 1u << (8 * dtype_size(t) - 1);  // positive patterns
    for (unsigned b = 0; b + 1 < n; ++b) {
      const double lo = from_bits(t, b), hi = from_bits(t, b + 1);
      if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
      const unsigned expect = (b % 2 == 0) ? b : b + 1;
      ASSERT_EQ(bits_of(t, (lo + hi) / 2), expect) << dtype_name(t) << " between " << lo << " and " << hi;
    }
  }
}

TEST(Dtype, IntegersRoundAndClamp) {
  EXPECT_EQ(round_to_dtype(DType::i8, 300), 127);
  EXPECT_EQ(round_to_dtype(DType::i8, -300), -128);
  EXPECT_EQ(round_to_dtype(DType::i8, 2.5), 2);  // nearest even
  EXPECT_EQ(round_to_dtype(DType::u8, -1), 0);
  EXPECT_EQ(round_to_dtype(DType::i32, 1e12), 2147483647.0);
  EXPECT_EQ(round_to_dtype(DType::i64, -7), -7);
}

TEST(Dtype, UlpAtReferenceValues) {
  EXPECT_DOUBLE_EQ(ulp_at(DType::bf16, 8.0), 0.0625);  // one bf16 ulp at 8..16
  EXPECT_DOUBLE_EQ(ulp_at(DType::bf16, 15.9), 0.0625);
  EXPECT_DOUBLE_EQ(ulp_at(DType::bf16, 1.0), std::ldexp(1.0, -7));
  EXPECT_DOUBLE_EQ(ulp_at(DType::f32, 1.0), std::ldexp(1.0, -23));
  EXPECT_DOUBLE_EQ(ulp_at(DType::f16, 0.0), std::ldexp(1.0, -24));  // subnormal spacing
  EXPECT_DOUBLE_EQ(ulp_at(DType::fp8e4m3, 300.0), 32.0);
  EXPECT_DOUBLE_EQ(ulp_at(DType::i32, 12345), 1.0);
}

TEST(Dtype, PoisonIsRecognisedAndNotAnOrdinaryValue) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::fp8e4m3, DType::fp8e5m2, DType::i8, DType::u8, DType::i32, DType::i64}) {
    uint8_t buf[8] = {};
    write_poison(t, buf);
    EXPECT_TRUE(is_poison(t, buf)) << dtype_name(t);
    uint8_t one[8] = {};
    encode(t, 1.0, one);
    EXPECT_FALSE(is_poison(t, one)) << dtype_name(t);
  }
  uint8_t nan_bits[4];
  encode(DType::f32, NAN, nan_bits);  // an ordinary NaN is not the poison
  EXPECT_FALSE(is_poison(DType::f32, nan_bits));
}

// The run-at-once codecs give the bytes and values of the element codecs for every dtype, on
// values of every kind (zeros, subnormals, ties, overflow, Inf, NaN), from an even and an odd start.
TEST(Dtype, SpanCodecsAreTheElementCodecs) {
  std::vector<double> v = {0.0, -0.0, 1e-310, -5e-8, 0.25, 0.75, 1.5, 2.5, -3.5, 5.0, 6.5, 448.0, 465.0, 57344.0,
                           65504.0, 65520.0, 3.4e38, 1e300, -1e300, INFINITY, -INFINITY, NAN, 127.5, -128.5, 255.5, 4.2e9};
  uint64_t state = 1;
  for (int i = 0; i < 5000; ++i) {  // random doubles over many binades
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(std::ldexp(static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5, static_cast<int>(state % 60) - 30));
  }
  const int64_t n = static_cast<int64_t>(v.size());
  for (int t = 0; t <= static_cast<int>(DType::u16); ++t) {
    const DType d = static_cast<DType>(t);
    for (const int64_t first : {int64_t{0}, int64_t{3}}) {
      std::vector<uint8_t> expected(storage_bytes(d, n + first), 0x5A), got = expected;
      for (int64_t i = 0; i < n; ++i) encode_element(d, v[static_cast<size_t>(i)], expected.data(), first + i);
      encode_elements(d, v.data(), n, got.data(), first);
      EXPECT_EQ(got, expected) << dtype_name(d) << " from " << first;
      std::vector<double> back(static_cast<size_t>(n)), back_one(static_cast<size_t>(n));
      decode_elements(d, got.data(), first, n, back.data());
      for (int64_t i = 0; i < n; ++i) back_one[static_cast<size_t>(i)] = decode_element(d, got.data(), first + i);
      EXPECT_EQ(std::memcmp(back.data(), back_one.data(), back.size() * sizeof(double)), 0) << dtype_name(d) << " from " << first;
    }
  }
}

// The comparisons' per-element ulp is ulp_at's, for every dtype, over zeros, subnormals, the
// formats' limits, Inf, NaN and random values over the whole double range.
TEST(Dtype, UlpOfIsUlpAt) {
  std::vector<double> v = {0.0, -0.0, 5e-324, 1e-310, 2.2250738585072014e-308, 1e-45, 6e-8, 1.0, -1.5, 448.0, 65504.0,
                           3.4e38, 1.7e308, INFINITY, -INFINITY, NAN};
  uint64_t state = 7;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(std::ldexp(static_cast<double>(state >> 11) * 0x1.0p-53, static_cast<int>(state % 2100) - 1070));
  }
  for (int t = 0; t <= static_cast<int>(DType::u16); ++t) {
    const DType d = static_cast<DType>(t);
    const UlpOf ulp_of(d);
    for (const double x : v) {
      const double a = ulp_of(x), b = ulp_at(d, x);
      ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << dtype_name(d) << " at " << x << ": " << a << " != " << b;
    }
  }
}

TEST(Dtype, PackUnpackRoundTrip) {
  const std::vector<double> v = {1.0, -2.5, 0.125, 448.0};
  EXPECT_EQ(unpack(DType::bf16, pack(DType::bf16, v)), v);
  EXPECT_EQ(unpack(DType::fp8e4m3, pack(DType::fp8e4m3, v)), v);
}

}  // namespace
}  // namespace hk
