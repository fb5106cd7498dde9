// The MX and static fp8 references (references/quant_mx.cpp) against hand-computed rows.
#include <cmath>
#include <gtest/gtest.h>

#include "check/rules/dequant.h"
#include "model/dtype.h"
#include "refs/generator.h"
#include "output_plan.h"
#include "reference.h"
#include "refs/runtime_references.h"

namespace hk {
namespace {

using ref::Context;

// A Context as hkcheck fills it in: round_to goes through hkcheck's rounding.
Context with_rounding() {
  Context c;
  c.round_dtype = round_for_reference;
  return c;
}
using ref::Tensor;

void run(const char* name, Context& ctx) {
  const ref::Function* f = ref::find(name);
  ASSERT_NE(f, nullptr) << name;
  (*f)(ctx);
}

Tensor tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> shape, std::vector<double> data = {}) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  if (data.empty()) data.assign(static_cast<size_t>(n), NAN);
  return Tensor{name, dtype, shape, data};
}

TEST(QuantMxReference, DowncastOneBlockByHand) {
  // max|x| = 5: floor(log2 5) = 2, scale 2^(2 - 2) = 1, so q = fp4(x): 5 -> 4 (tie to even),
  // 0.25 -> 0 (tie to even), 0.3 -> 0.5, -2.6 -> -3, 1.25 -> 1 (tie to even).
  std::vector<double> x(32, 0.0);
  x[0] = 5, x[1] = 0.25, x[2] = 0.3, x[3] = -2.6, x[4] = 1.25;
  // Second row: max 0.1 -> floor(log2 0.1) = -4, scale 2^-6 = 1/64: 0.1 * 64 = 6.4 -> 6 (saturates
  // to the top of the grid), 0.03 * 64 = 1.92 -> 2.
  std::vector<double> x2(32, 0.0);
  x2[5] = 0.1, x2[6] = -0.03;
  x.insert(x.end(), x2.begin(), x2.end());
  Context ctx = with_rounding();
  ctx.tensors["x"] = tensor("x", "f64", {2, 32}, x);
  ctx.tensors["q"] = tensor("q", "fp4e2m1", {2, 32});
  ctx.tensors["scale"] = tensor("scale", "e8m0", {2, 1});
  run("downcast_to_mxfp", ctx);
  const auto& q = ctx.tensors["q"].data;
  const auto& s = ctx.tensors["scale"].data;
  EXPECT_EQ(s[0], 1.0);
  EXPECT_EQ(s[1], 1.0 / 64);
  EXPECT_EQ(q[0], 4);
  EXPECT_EQ(q[1], 0);
  EXPECT_EQ(q[2], 0.5);
  EXPECT_EQ(q[3], -3);
  EXPECT_EQ(q[4], 1);
  EXPECT_EQ(q[5], 0);
  EXPECT_EQ(q[32 + 5], 6);
  EXPECT_EQ(q[32 + 6], -2);
  EXPECT_EQ(q[32 + 7], 0);
}

TEST(QuantMxReference, DowncastShortTailBlockAndZeroBlock) {
  // One row of 34: a full block of zeros (scale 2^-127), then a tail block of 2 = {8, -1}:
  // floor(log2 8) = 3, scale 2, q = {4, -0.5}.
  std::vector<double> x(34, 0.0);
  x[32] = 8, x[33] = -1;
  Context ctx = with_rounding();
  ctx.tensors["x"] = tensor("x", "f64", {1, 34}, x);
  ctx.tensors["q"] = tensor("q", "fp4e2m1", {1, 34});
  ctx.tensors["scale"] = tensor("scale", "e8m0", {1, 2});
  run("downcast_to_mxfp", ctx);
  EXPECT_EQ(ctx.tensors["scale"].data[0], std::ldexp(1.0, -127));
  EXPECT_EQ(ctx.tensors["scale"].data[1], 2.0);
  EXPECT_EQ(ctx.tensors["q"].data[32], 4);
  EXPECT_EQ(ctx.tensors["q"].data[33], -0.5);
}

TEST(QuantMxReference, UpcastMultipliesByTheBlockScale) {
  std::vector<double> q(64, 0.0), s = {4.0, 0.125};
  q[0] = 1.5, q[31] = -6, q[32] = 3;
  Context ctx = with_rounding();
  ctx.tensors["q"] = tensor("q", "fp4e2m1", {1, 64}, q);
  ctx.tensors["scale"] = tensor("scale", "e8m0", {1, 2}, s);
  ctx.tensors["y"] = tensor("y", "bf16", {1, 64});
  run("upcast_from_mxfp", ctx);
  EXPECT_EQ(ctx.tensors["y"].data[0], 6.0);
  EXPECT_EQ(ctx.tensors["y"].data[31], -24.0);
  EXPECT_EQ(ctx.tensors["y"].data[32], 0.375);
}

TEST(QuantMxReference, StaticFp8DividesByTheGivenScale) {
  Context ctx = with_rounding();
  ctx.tensors["x"] = tensor("x", "f32", {4}, {1.0, -3.0, 1000.0, 0.1});
  ctx.tensors["scale"] = tensor("scale", "f32", {1}, {0.5});
  ctx.tensors["q"] = tensor("q", "fp8e4m3", {4});
  run("downcast_to_static_fp8", ctx);
  const auto& q = ctx.tensors["q"].data;
  EXPECT_EQ(q[0], 2.0);
  EXPECT_EQ(q[1], -6.0);
  EXPECT_EQ(q[2], 448.0);    // 2000 saturates
  EXPECT_EQ(q[3], 0.203125); // 0.2 -> nearest e4m3 (13/64)
}

TEST(QuantMxReference, FusedRmsnormQuantizesTheNormalizedRowAndHandsItBack) {
  // x = {2, -2, 2, -2, ...} (32), w = 1: mean(x^2) = 4, y = x / 2 = +-1 (eps 0): max 1, scale
  // 2^(0 - 2) = 0.25, q = +-4.
  std::vector<double> x(32), w(32, 1.0);
  for (int i = 0; i < 32; ++i) x[static_cast<size_t>(i)] = i % 2 ? -2 : 2;
  Context ctx = with_rounding();
  ctx.numbers["eps"] = 0;
  ctx.tensors["x"] = tensor("x", "bf16", {1, 32}, x);
  ctx.tensors["w"] = tensor("w", "bf16", {32}, w);
  ctx.tensors["q"] = tensor("q", "fp4e2m1", {1, 32});
  ctx.tensors["scale"] = tensor("scale", "e8m0", {1, 1});
  run("fused_rmsnorm_mxfp4_quant_fwd", ctx);
  EXPECT_EQ(ctx.tensors["scale"].data[0], 0.25);
  EXPECT_EQ(ctx.tensors["q"].data[0], 4);
  EXPECT_EQ(ctx.tensors["q"].data[1], -4);
  ASSERT_TRUE(ctx.tensors.count("y"));
  EXPECT_EQ(ctx.tensors["y"].data[1], -1.0);
}

// The dequantization error MX fp4 leaves on normal data: what the manifests' max_rel_l2 bounds.
TEST(QuantMxReference, DequantErrorOfNormalDataIsBounded) {
  for (int64_t D : {128, 1000, 4096}) {
    GeneratorPlan g{"normal", {{"mean", 0}, {"std", 1}}};
    std::vector<double> x = generate(g, 16 * D, 7);
    for (double& v : x) v = round_to_dtype(DType::bf16, v);
    Context ctx = with_rounding();
    ctx.tensors["x"] = tensor("x", "bf16", {16, D}, x);
    ctx.tensors["q"] = tensor("q", "fp4e2m1", {16, D});
    ctx.tensors["scale"] = tensor("scale", "e8m0", {16, (D + 31) / 32});
    run("downcast_to_mxfp", ctx);
    const TensorPlan q = test::out_tensor(DType::fp4e2m1, {16, D}, {}, "q");
    const DequantMetrics m = check_dequant(q, pack(DType::fp4e2m1, ctx.tensors["q"].data), DequantPlan{1, 32, "x", 0.2},
                                           "scale", ctx.tensors["scale"].data, x);
    std::printf("MX fp4 dequant rel_l2 at D=%lld: %.4f\n", static_cast<long long>(D), m.rel_l2);
    EXPECT_GT(m.rel_l2, 0.03);  // fp4 is coarse: a zero error would mean nothing was quantized
    EXPECT_LT(m.rel_l2, 0.2);  // manifests/quant_moe.json's max_rel_l2
    // The fused kernel's worst data in manifests/quant_mx.json: signed weights in [-1.5, 1.5].
    GeneratorPlan wg{"uniform", {{"low", -1.5}, {"high", 1.5}}};
    std::vector<double> w = generate(wg, D, 9);
    for (double& v : w) v = round_to_dtype(DType::bf16, v);
    ctx.numbers["eps"] = 1e-6;
    ctx.tensors["w"] = tensor("w", "bf16", {D}, w);
    run("fused_rmsnorm_mxfp4_quant_fwd", ctx);
    const DequantMetrics f = check_dequant(q, pack(DType::fp4e2m1, ctx.tensors["q"].data), DequantPlan{1, 32, "y", 0.2},
                                           "scale", ctx.tensors["scale"].data, ctx.tensors["y"].data);
    std::printf("fused rmsnorm MX fp4 dequant rel_l2 at D=%lld, signed weights: %.4f\n", static_cast<long long>(D), f.rel_l2);
    EXPECT_LT(f.rel_l2, 0.2);  // manifests/quant_mx.json's max_rel_l2
  }
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// The dequantization error of the int8 and fp8 references on the manifests' data stays inside
// the max_rel_l2 that manifests/quant.json declares (0.015 and 0.04).
TEST(QuantReference, DequantErrorsFitTheManifestLimits) {
  for (int64_t D : {7, 1000, 4096}) {
    GeneratorPlan g{"normal", {{"mean", 0}, {"std", 1}}};
    std::vector<double> x = generate(g, 8 * D, 11);
    for (double& v : x) v = round_to_dtype(DType::bf16, v);
    Context ctx = with_rounding();
    ctx.numbers["eps"] = 1e-6;
    ctx.tensors["x"] = tensor("x", "bf16", {8, D}, x);
    ctx.tensors["w"] = tensor("w", "bf16", {D}, std::vector<double>(static_cast<size_t>(D), 1.0));
    ctx.tensors["scale"] = tensor("scale", "f32", {8});
    ctx.tensors["q"] = tensor("q", "i8", {8, D});
    run("per_token_quant_fwd", ctx);
    TensorPlan q = test::out_tensor(DType::i8, {8, D}, {}, "q");
    const DequantMetrics i8 = check_dequant(q, pack(DType::i8, ctx.tensors["q"].data), DequantPlan{1, D, "x", 0.015},
                                            "scale", ctx.tensors["scale"].data, x);
    ctx.tensors["q"] = tensor("q", "fp8e4m3", {8, D});
    run("fused_rmsnorm_fp8_quant_fwd", ctx);
    q.dtype = DType::fp8e4m3;
    const DequantMetrics fp8 = check_dequant(q, pack(DType::fp8e4m3, ctx.tensors["q"].data), DequantPlan{1, D, "y", 0.04},
                                             "scale", ctx.tensors["scale"].data, ctx.tensors["y"].data);
    std::printf("D=%lld: int8 dequant rel_l2 %.4f, fp8 %.4f\n", static_cast<long long>(D), i8.rel_l2, fp8.rel_l2);
    EXPECT_TRUE(i8.pass);
    EXPECT_TRUE(fp8.pass);
    EXPECT_GT(i8.rel_l2, 0);
    EXPECT_GT(fp8.rel_l2, 0);
  }
}

}  // namespace
}  // namespace hk
