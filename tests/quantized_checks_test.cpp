// Judging quantized outputs: the mismatch allowance (max_mismatch_fraction, hard_ulps), the
// dequantization check, their manifest validation and their place in the results JSON.
#include <cmath>
#include <gtest/gtest.h>

#include "output_plan.h"
#include <nlohmann/json.hpp>

#include "model/case_plan.h"
#include "model/plan_case.h"
#include "check/rules/dequant.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "check/metrics.h"
#include "contracts/result.h"
#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;

TensorPlan quantized_out(DType t, std::vector<int64_t> shape, Tolerance tol) { return test::out_tensor(t, shape, tol, "q"); }

Tolerance allowance(double ulps, double fraction, double hard) {
  Tolerance t;
  t.ulps = ulps;
  t.max_mismatch_fraction = fraction;
  t.hard_ulps = hard;
  return t;
}

// 200 fp8 values with k of them one ulp off.
std::vector<double> fp8_ref() {
  std::vector<double> r;
  for (int i = 0; i < 200; ++i) r.push_back(1.0 + 0.125 * (i % 8));
  return r;
}
std::vector<double> bumped(std::vector<double> v, int k, double by) {
  for (int i = 0; i < k; ++i) v[static_cast<size_t>(i)] += by;
  return v;
}

TEST(QuantizedMetrics, FractionOfOneUlpMismatchesIsAllowed) {
  const auto ref = fp8_ref();
  const auto t = quantized_out(DType::fp8e4m3, {200}, allowance(0, 0.005, 1));  // 0.5% of 200 = 1
  const auto one = compare_output(t, pack(DType::fp8e4m3, bumped(ref, 1, 0.125)), ref);
  EXPECT_TRUE(one.pass);
  EXPECT_EQ(one.mismatches, 1);
  const auto two = compare_output(t, pack(DType::fp8e4m3, bumped(ref, 2, 0.125)), ref);
  EXPECT_FALSE(two.pass);  // 1% > 0.5%
  EXPECT_EQ(two.mismatches, 2);
}

TEST(QuantizedMetrics, HardUlpsFailsEvenWithinTheFraction) {
  const auto ref = fp8_ref();
  const auto t = quantized_out(DType::fp8e4m3, {200}, allowance(0, 0.05, 1));
  const auto m = compare_output(t, pack(DType::fp8e4m3, bumped(ref, 1, 0.25)), ref);  // 2 ulps
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.beyond_hard_ulps, 1);
  EXPECT_EQ(m.mismatches, 1);
}

TEST(QuantizedMetrics, WithoutAFractionEveryMismatchFails) {
  const auto ref = fp8_ref();
  const auto t = quantized_out(DType::fp8e4m3, {200}, allowance(0, 0, 0));
  EXPECT_FALSE(compare_output(t, pack(DType::fp8e4m3, bumped(ref, 1, 0.125)), ref).pass);
}

TEST(QuantizedMetrics, Int8WithinOneUlp) {
  const auto t = quantized_out(DType::i8, {4}, allowance(1, 0, 0));
  EXPECT_TRUE(compare_output(t, pack(DType::i8, {10, -128 + 1, 0, 127}), {11, -127, 1, 126}).pass);
  EXPECT_FALSE(compare_output(t, pack(DType::i8, {10, -127, 0, 127}), {12, -127, 0, 127}).pass);
}

TEST(QuantizedMetrics, UnwrittenFailsEvenWithinTheFraction) {
  const std::vector<double> ref(100, 1.0);
  const auto t = quantized_out(DType::fp8e4m3, {100}, allowance(0, 0.5, 0));
  std::vector<uint8_t> got = pack(DType::fp8e4m3, ref);
  write_poison(DType::fp8e4m3, got.data() + 3);
  const auto m = compare_output(t, got, ref);
  EXPECT_EQ(m.unwritten, 1);
  EXPECT_FALSE(m.pass);
}

TEST(QuantizedMetrics, PackedFp4IsComparedPerElementAndUnwrittenPairsShow) {
  const std::vector<double> ref = {1, -6, 0.5, 3, -1.5};
  const auto t = quantized_out(DType::fp4e2m1, {5}, allowance(0, 0, 0));
  EXPECT_TRUE(compare_output(t, pack(DType::fp4e2m1, ref), ref).pass);
  std::vector<uint8_t> got = pack(DType::fp4e2m1, ref);
  encode_element(DType::fp4e2m1, 2.0, got.data(), 3);  // element 3: 2 instead of 3 = one ulp
  const auto m = compare_output(t, got, ref);
  EXPECT_FALSE(m.pass);
  ASSERT_TRUE(m.first_mismatch);
  EXPECT_EQ(m.first_mismatch->index, (std::vector<int64_t>{3}));
  EXPECT_DOUBLE_EQ(m.max_ulps, 1.0);
  std::vector<uint8_t> half = poisoned_buffer(DType::fp4e2m1, 5);
  half[0] = pack(DType::fp4e2m1, {1, -6})[0];  // only the first pair written
  const auto u = compare_output(t, half, ref);
  EXPECT_EQ(u.unwritten, 3);  // elements 2, 3 and 4 (the last byte holds 4 and the padding)
  EXPECT_FALSE(u.pass);
}

TEST(QuantizedMetrics, PoisonEqualToTheReferenceIsNotUnwritten) {
  const std::vector<double> ref = {6, -6};  // the fp4 poison byte 0xF7 is this pair
  const auto t = quantized_out(DType::fp4e2m1, {2}, allowance(0, 0, 0));
  const auto m = compare_output(t, poisoned_buffer(DType::fp4e2m1, 2), ref);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_TRUE(m.pass);
}

TEST(DequantCheck, RelativeL2OfBlockScaledValues) {
  // 2 rows of 4, blocks of 2: scales [r0b0, r0b1, r1b0, r1b1].
  auto q = quantized_out(DType::fp4e2m1, {2, 4}, {});
  const DequantPlan plan{1, 2, "x", 0.1};
  const std::vector<double> qv = {1, 2, 0.5, -1, 3, 3, 6, 0};
  const std::vector<double> scales = {1, 4, 0.5, 2};
  const std::vector<double> x = {1, 2, 2, -4, 1.5, 1.5, 12, 0};
  const DequantMetrics exact = check_dequant(q, pack(DType::fp4e2m1, qv), plan, "s", scales, x);
  EXPECT_EQ(exact.rel_l2, 0);
  EXPECT_TRUE(exact.pass);
  std::vector<double> off = x;
  off[6] = 14;  // |12 - 14| = 2 against ||x|| ~ 13.4: 15% > 10%
  const DequantMetrics bad = check_dequant(q, pack(DType::fp4e2m1, qv), plan, "s", scales, off);
  EXPECT_NEAR(bad.rel_l2, 2.0 / std::sqrt(1 + 4 + 4 + 16 + 2.25 + 2.25 + 196), 1e-12);
  EXPECT_FALSE(bad.pass);
  // One scale for the whole tensor.
  const DequantMetrics per_tensor = check_dequant(q, pack(DType::fp4e2m1, qv), plan, "s", {2.0},
                                                  {2, 4, 1, -2, 6, 6, 12, 0});
  EXPECT_EQ(per_tensor.rel_l2, 0);
  // A NaN scale (unwritten e8m0) fails.
  EXPECT_FALSE(check_dequant(q, pack(DType::fp4e2m1, qv), plan, "s", {NAN}, x).pass);
}

struct ManifestFixture : ::testing::Test {
  test::TempDir dir;
  void SetUp() override { dir.write("k.cu", "#include \"hkcheck.h\"\n"); }
  static json kernel() {
    return json::parse(R"J({
      "name": "quant", "source": "k.cu", "entry": "quant", "reference": "per_token_quant_fwd",
      "params": {"M": 3, "D": 64},
      "cases": [{"name": "a"}],
      "tensors": [{"name": "x", "dtype": "f32", "shape": ["M", "D"], "role": "in", "init": {"kind": "normal"}},
                  {"name": "scale", "dtype": "f32", "shape": ["M"], "role": "out"},
                  {"name": "q", "dtype": "i8", "shape": ["M", "D"], "role": "out",
                   "tolerance": {"ulps": 1, "max_mismatch_fraction": 0.01, "hard_ulps": 1, "why": "test"},
                   "dequant": {"scale": "scale", "against": "x", "max_rel_l2": 0.01}}],
      "args": ["q", "scale", "x"],
      "launch": {"grid": ["M"], "block": [64]}
    })J");
  }
  std::string error_of(const json& k) {
    const ManifestLoad m = load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {k}}}.dump()));
    EXPECT_EQ(m.errors.size(), 1u);
    return m.errors.empty() ? "" : m.errors[0];
  }
};

TEST_F(ManifestFixture, QuantizedOptionsPlan) {
  const ManifestLoad m = load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel()}}}.dump()));
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  const CasePlan p = plan_case(m.kernels[0], m.kernels[0].cases[0]);
  const TensorPlan& q = p.tensors[2];
  EXPECT_DOUBLE_EQ(q.tolerance.max_mismatch_fraction, 0.01);
  EXPECT_DOUBLE_EQ(q.tolerance.hard_ulps, 1);
  ASSERT_EQ(q.checks.size(), 1u);
  const DequantPlan d = dequant_plan(q.checks[0]);
  EXPECT_EQ(d.scale, 1);
  EXPECT_EQ(d.block, 64);  // no block: one scale per row
  EXPECT_EQ(d.against, "x");
}

TEST_F(ManifestFixture, BadQuantizedOptionsNameTheField) {
  json k = kernel();
  k["tensors"][2]["tolerance"]["max_mismatch_fraction"] = 2;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/tolerance/max_mismatch_fraction: expected a fraction"), std::string::npos);
  k = kernel();
  k["tensors"][2]["tolerance"]["hard_ulps"] = -1;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/tolerance/hard_ulps: expected a number >= 0"), std::string::npos);
  k = kernel();
  k["tensors"][2]["dequant"]["scale"] = "nope";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/dequant/scale: case 'a': 'nope' is not another tensor"), std::string::npos);
  k = kernel();
  k["tensors"][2]["dequant"]["block"] = 32;  // 3 rows of 64 in blocks of 32 need 6 scales, not 3
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/dequant/scale: case 'a': 'scale' has 3 elements"), std::string::npos);
  k = kernel();
  k["tensors"][2]["dequant"].erase("max_rel_l2");
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/dequant/max_rel_l2: required field is missing"), std::string::npos);
  k = kernel();
  k["tensors"][2]["dequant"]["max_rel_l2"] = 0;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/dequant/max_rel_l2: expected a number > 0"), std::string::npos);
  k = kernel();
  k["tensors"][2]["dequant"]["against"] = "scale";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/dequant/against: case 'a': 'scale' is an output"), std::string::npos);
  k = kernel();
  k["tensors"][2]["dequant"]["rtol"] = 1;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/dequant/rtol: unknown field"), std::string::npos);
  k = kernel();
  k["tensors"][0]["dequant"] = k["tensors"][2]["dequant"];
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/dequant: an input tensor is not compared"), std::string::npos);
}

TEST(QuantizedResults, RoundTripThroughJson) {
  OutputMetrics m;
  m.name = "q";
  m.dtype = "fp4e2m1";
  m.tolerance = allowance(0, 0.005, 1);
  m.beyond_hard_ulps = 2;
  m.checks.push_back(CheckOutcome{"dequant", true, "||q * q_scale - x|| / ||x|| = 0.08", {{"rel_l2", 0.08}, {"block", 32}}});
  const json j = m;
  EXPECT_EQ(j["tolerance"]["max_mismatch_fraction"], 0.005);
  EXPECT_EQ(j["checks"][0]["figures"]["rel_l2"], 0.08);
  const OutputMetrics back = j.get<OutputMetrics>();
  EXPECT_EQ(back.beyond_hard_ulps, 2);
  EXPECT_DOUBLE_EQ(back.tolerance.hard_ulps, 1);
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_EQ(back.checks[0].rule, "dequant");
  EXPECT_EQ(back.checks[0].summary, m.checks[0].summary);
  EXPECT_EQ(back.checks[0].figures.at("block"), 32);
  OutputMetrics plain;
  const OutputMetrics plain_back = json(plain).get<OutputMetrics>();
  EXPECT_TRUE(plain_back.checks.empty());
  EXPECT_EQ(plain_back.compare, "elementwise");
}

}  // namespace
}  // namespace hk
