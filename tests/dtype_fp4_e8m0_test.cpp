// OCP MX types: fp4 e2m1 (packed two per byte) and the e8m0 scale.
#include <cmath>
#include <gtest/gtest.h>

#include "model/dtype.h"

namespace hk {
namespace {

unsigned fp4_code(double v) {
  uint8_t b = 0xAA;
  encode(DType::fp4e2m1, v, &b);
  return b;  // the code in the low nibble, the high nibble zero
}
double fp4_value(unsigned code) {
  const uint8_t b = static_cast<uint8_t>(code);
  return decode(DType::fp4e2m1, &b);
}
unsigned e8m0_code(double v) {
  uint8_t b = 0;
  encode(DType::e8m0, v, &b);
  return b;
}
double e8m0_value(unsigned code) {
  const uint8_t b = static_cast<uint8_t>(code);
  return decode(DType::e8m0, &b);
}

TEST(DtypeFp4, EveryCodeDecodesToTheOcpTable) {
  const double table[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(fp4_value(c), table[c]) << c;
    EXPECT_EQ(fp4_value(c | 8), -table[c]) << c;
  }
  EXPECT_TRUE(std::signbit(fp4_value(0x8)));  // -0
}

TEST(DtypeFp4, EveryCodeRoundTrips) {
  for (unsigned c = 0; c < 16; ++c) EXPECT_EQ(fp4_code(fp4_value(c)), c) << c;
}

TEST(DtypeFp4, RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(fp4_code(0.25), 0x0u);   // tie between 0 and 0.5 -> 0 (even)
  EXPECT_EQ(fp4_code(0.26), 0x1u);
  EXPECT_EQ(fp4_code(0.75), 0x2u);   // tie between 0.5 and 1 -> 1 (even code)
  EXPECT_EQ(fp4_code(1.25), 0x2u);   // tie between 1 and 1.5 -> 1
  EXPECT_EQ(fp4_code(1.75), 0x4u);   // tie between 1.5 and 2 -> 2
  EXPECT_EQ(fp4_code(2.5), 0x4u);    // tie between 2 and 3 -> 2
  EXPECT_EQ(fp4_code(3.5), 0x6u);    // tie between 3 and 4 -> 4
  EXPECT_EQ(fp4_code(5.0), 0x6u);    // tie between 4 and 6 -> 4
  EXPECT_EQ(fp4_code(5.01), 0x7u);
  EXPECT_EQ(fp4_code(7.0), 0x7u);    // saturates to 6
  EXPECT_EQ(fp4_code(1e30), 0x7u);
  EXPECT_EQ(fp4_code(INFINITY), 0x7u);
  EXPECT_EQ(fp4_code(-INFINITY), 0xFu);
  EXPECT_EQ(fp4_code(-2.5), 0xCu);
  EXPECT_EQ(fp4_code(-0.0), 0x8u);
  EXPECT_EQ(fp4_code(-0.1), 0x8u);   // rounds to -0
  EXPECT_EQ(fp4_code(NAN), 0x7u);    // no NaN in e2m1: documented as +6
}

TEST(DtypeFp4, UlpIsTheSpacingOfTheTable) {
  EXPECT_EQ(ulp_at(DType::fp4e2m1, 0.0), 0.5);  // subnormal spacing
  EXPECT_EQ(ulp_at(DType::fp4e2m1, 0.5), 0.5);
  EXPECT_EQ(ulp_at(DType::fp4e2m1, 1.5), 0.5);
  EXPECT_EQ(ulp_at(DType::fp4e2m1, 3.0), 1.0);
  EXPECT_EQ(ulp_at(DType::fp4e2m1, -6.0), 2.0);
}

TEST(DtypeFp4, PacksTwoPerByteLowNibbleFirst) {
  EXPECT_TRUE(is_packed(DType::fp4e2m1));
  EXPECT_EQ(storage_bytes(DType::fp4e2m1, 5), 3u);
  EXPECT_EQ(storage_bytes(DType::fp4e2m1, 4), 2u);
  EXPECT_EQ(storage_bytes(DType::fp4e2m1, 0), 0u);
  const std::vector<uint8_t> bytes = pack(DType::fp4e2m1, {1.0, -6.0, 0.5, 3.0, -1.5});
  ASSERT_EQ(bytes.size(), 3u);
  EXPECT_EQ(bytes[0], 0xF2);  // element 0 (1.0 = 0x2) low, element 1 (-6 = 0xF) high
  EXPECT_EQ(bytes[1], 0x51);  // 0.5 = 0x1 low, 3.0 = 0x5 high
  EXPECT_EQ(bytes[2], 0x0B);  // -1.5 = 0xB low, padding nibble 0
  EXPECT_EQ(decode_element(DType::fp4e2m1, bytes.data(), 1), -6.0);
  EXPECT_EQ(decode_element(DType::fp4e2m1, bytes.data(), 4), -1.5);
  const std::vector<double> back = unpack(DType::fp4e2m1, bytes);
  EXPECT_EQ(back, (std::vector<double>{1.0, -6.0, 0.5, 3.0, -1.5, 0.0}));
  std::vector<uint8_t> b2 = bytes;
  encode_element(DType::fp4e2m1, 4.0, b2.data(), 3);  // rewrites only the high nibble of byte 1
  EXPECT_EQ(b2[1], 0x61);
}

TEST(DtypeFp4, PoisonIsPerByteAndDetectedPerElement) {
  const std::vector<uint8_t> p = poisoned_buffer(DType::fp4e2m1, 5);
  ASSERT_EQ(p.size(), 3u);
  for (int64_t i = 0; i < 5; ++i) EXPECT_TRUE(is_poison_element(DType::fp4e2m1, p.data(), i)) << i;
  std::vector<uint8_t> w = p;
  encode_element(DType::fp4e2m1, 1.0, w.data(), 2);  // writing one element of the pair clears both
  EXPECT_FALSE(is_poison_element(DType::fp4e2m1, w.data(), 2));
  EXPECT_FALSE(is_poison_element(DType::fp4e2m1, w.data(), 3));
  EXPECT_TRUE(is_poison_element(DType::fp4e2m1, w.data(), 0));
  const std::vector<uint8_t> ordinary = pack(DType::fp4e2m1, {6.0, 6.0, -6.0, -6.0});
  EXPECT_FALSE(is_poison_element(DType::fp4e2m1, ordinary.data(), 0));
}

TEST(DtypeE8m0, KnownPatternsAndSpecialValues) {
  EXPECT_EQ(e8m0_code(1.0), 127u);
  EXPECT_EQ(e8m0_code(2.0), 128u);
  EXPECT_EQ(e8m0_code(0.25), 125u);
  EXPECT_EQ(e8m0_code(std::ldexp(1.0, -127)), 0u);
  EXPECT_EQ(e8m0_code(std::ldexp(1.0, 127)), 254u);
  EXPECT_EQ(e8m0_code(3.0), 128u);    // not a power of two: toward zero (2)
  EXPECT_EQ(e8m0_code(0.99), 126u);   // 0.5
  EXPECT_EQ(e8m0_code(0.0), 0u);      // no zero: the smallest scale
  EXPECT_EQ(e8m0_code(1e-300), 0u);
  EXPECT_EQ(e8m0_code(1e300), 254u);  // saturates
  EXPECT_EQ(e8m0_code(INFINITY), 254u);
  EXPECT_EQ(e8m0_code(NAN), 255u);
  EXPECT_EQ(e8m0_code(-1.0), 255u);   // no sign
  EXPECT_TRUE(std::isnan(e8m0_value(255)));
  EXPECT_EQ(e8m0_value(0), std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0_value(130), 8.0);
}

TEST(DtypeE8m0, EveryCodeRoundTripsAndPoisonIsNan) {
  for (unsigned c = 0; c < 255; ++c) EXPECT_EQ(e8m0_code(e8m0_value(c)), c) << c;
  uint8_t b = 0;
  write_poison(DType::e8m0, &b);
  EXPECT_EQ(b, 0xFF);
  EXPECT_TRUE(is_poison(DType::e8m0, &b));
  EXPECT_EQ(ulp_at(DType::e8m0, 4.0), 4.0);  // the next scale up is 8
  EXPECT_EQ(ulp_at(DType::e8m0, 5.0), 4.0);
  EXPECT_EQ(storage_bytes(DType::e8m0, 7), 7u);
  EXPECT_EQ(parse_dtype("e8m0"), DType::e8m0);
  EXPECT_EQ(parse_dtype("fp4e2m1"), DType::fp4e2m1);
}

}  // namespace
}  // namespace hk
