#include "check/metrics.h"

#include <cmath>
#include <gtest/gtest.h>

#include "output_plan.h"

namespace hk {
namespace {

using test::out_tensor;

TEST(Metrics, ExactMatchPasses) {
  const auto t = out_tensor(DType::f32, {4}, {0, 0, 0});
  const std::vector<double> v = {1, -2, 3.5, 0};
  const auto m = compare_output(t, pack(DType::f32, v), v);
  EXPECT_TRUE(m.pass);
  EXPECT_EQ(m.mismatches, 0);
  EXPECT_EQ(m.max_abs_diff, 0);
}

TEST(Metrics, UlpsAreReadOffTheReport) {
  // bf16 at 8..16 has an ulp of 0.0625: one ulp off is max_ulps 1.
  const auto t = out_tensor(DType::bf16, {2}, {0, 0, 1});
  const auto m = compare_output(t, pack(DType::bf16, {8.0625, 10.0}), {8.0, 10.0});
  EXPECT_TRUE(m.pass);
  EXPECT_DOUBLE_EQ(m.max_abs_diff, 0.0625);
  EXPECT_DOUBLE_EQ(m.max_ulps, 1.0);
  const auto two = compare_output(t, pack(DType::bf16, {8.125, 10.0}), {8.0, 10.0});
  EXPECT_FALSE(two.pass);
  EXPECT_DOUBLE_EQ(two.max_ulps, 2.0);
}

TEST(Metrics, UlpsIgnoreNoiseBelowAtolNearZero) {
  // A 1e-9 error at a reference of 1e-30 is ~1e20 bf16 ulps but well inside atol: it must not
  // become the reported worst; the 1-ulp error at 8 is.
  const auto t = out_tensor(DType::bf16, {2}, {1e-3, 0, 1});
  const auto m = compare_output(t, pack(DType::bf16, {1e-9, 8.0625}), {1e-30, 8.0});
  EXPECT_TRUE(m.pass);
  EXPECT_DOUBLE_EQ(m.max_ulps, 1.0);
  // When every error is inside atol, the ulps are those of the largest error.
  const auto small = compare_output(t, pack(DType::bf16, {1e-9, 8.0}), {1e-30, 8.0});
  EXPECT_GT(small.max_ulps, 1e10);
}

TEST(Metrics, EitherToleranceIsEnough) {
  const auto t = out_tensor(DType::f32, {2}, {0.5, 0, 1});
  const auto m = compare_output(t, pack(DType::f32, {1.4, 100.0}), {1.0, 100.0});
  EXPECT_TRUE(m.pass);  // 0.4 <= atol
}

TEST(Metrics, FirstMismatchHasAMultiDimensionalIndex) {
  const auto t = out_tensor(DType::f32, {2, 3}, {1e-6, 0, 0});
  std::vector<double> ref = {0, 1, 2, 3, 4, 5};
  std::vector<double> got = ref;
  got[4] = 40;
  got[5] = 50;
  const auto m = compare_output(t, pack(DType::f32, got), ref);
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.mismatches, 2);
  EXPECT_DOUBLE_EQ(m.mismatch_fraction, 2.0 / 6);
  ASSERT_TRUE(m.first_mismatch);
  EXPECT_EQ(m.first_mismatch->index, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(m.first_mismatch->got, 40);
  EXPECT_EQ(m.first_mismatch->expected, 4);
  ASSERT_TRUE(m.worst);
  EXPECT_EQ(m.worst->index, (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(m.max_abs_diff, 45);
  EXPECT_NEAR(m.rel_l2, std::sqrt(36.0 * 36 + 45 * 45) / std::sqrt(55.0), 1e-9);
}

TEST(Metrics, UnwrittenAndNonFiniteAreCounted) {
  const auto t = out_tensor(DType::bf16, {4}, {1, 1, 1});
  std::vector<uint8_t> got = pack(DType::bf16, {1, NAN, INFINITY, 0});
  write_poison(DType::bf16, got.data() + 6);  // element 3 never written
  const auto m = compare_output(t, got, {1, 2, 3, 4});
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.unwritten, 1);
  EXPECT_EQ(m.nonfinite, 2);
  EXPECT_EQ(m.mismatches, 3);
  EXPECT_EQ(m.first_mismatch->index, (std::vector<int64_t>{1}));
}

TEST(Metrics, NanExpectedMatchesNanGot) {
  const auto t = out_tensor(DType::f32, {1}, {0, 0, 0});
  EXPECT_TRUE(compare_output(t, pack(DType::f32, {NAN}), {NAN}).pass);
  EXPECT_FALSE(compare_output(t, pack(DType::f32, {1.0}), {NAN}).pass);
}

TEST(Metrics, IntegerPoisonIsUnwritten) {
  const auto t = out_tensor(DType::i32, {3}, {0, 0, 0});
  std::vector<uint8_t> got = pack(DType::i32, {5, 6, 7});
  write_poison(DType::i32, got.data() + 4);
  const auto m = compare_output(t, got, {5, 6, 7});
  EXPECT_EQ(m.unwritten, 1);
  EXPECT_FALSE(m.pass);
}

// Every dtype: an element still holding the poison is unwritten, whether its poison reads as a
// NaN (the float dtypes, whose other elements are not looked at again) or as a value (fp4, the
// integers). The reference is a value the poison can never equal.
TEST(Metrics, AnElementLeftAsPoisonIsUnwrittenInEveryDtype) {
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::fp8e4m3, DType::fp8e5m2, DType::i8, DType::u8, DType::i32,
                  DType::i64, DType::u32, DType::u64, DType::fp4e2m1, DType::e8m0, DType::i16, DType::u16}) {
    const auto t = out_tensor(d, {4}, {0, 0, 0});
    const std::vector<double> ref = {1, 2, 1, 2};
    std::vector<uint8_t> got = pack(d, ref);
    write_poison(d, got.data() + (d == DType::fp4e2m1 ? 1 : 2 * dtype_size(d)));  // elements 2 (and 3 for fp4's pair)
    const auto m = compare_output(t, got, ref);
    EXPECT_GE(m.unwritten, 1) << dtype_name(d);
    EXPECT_FALSE(m.pass) << dtype_name(d);
  }
}

// A masked score the kernel wrote as the reference's -inf is exact: it passes, and adds nothing to
// the error sums or the ulps.
TEST(Metrics, EqualInfinitiesAreExact) {
  const auto t = out_tensor(DType::f32, {4}, {0, 0, 0});
  const std::vector<double> ref = {-INFINITY, 0.5, INFINITY, -INFINITY};
  const auto m = compare_output(t, pack(DType::f32, ref), ref);
  EXPECT_TRUE(m.pass);
  EXPECT_EQ(m.mismatches, 0);
  EXPECT_EQ(m.max_abs_diff, 0);
  EXPECT_EQ(m.rel_l2, 0);
  EXPECT_FALSE(compare_output(t, pack(DType::f32, {INFINITY, 0.5, INFINITY, -INFINITY}), ref).pass);
}

}  // namespace
}  // namespace hk
