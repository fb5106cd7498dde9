// The output rules of output_check.h: index outputs judged by the values they select, outputs
// compared as unordered rows, and their plans' errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/case_plan.h"
#include "model/plan_case.h"
#include "check/metrics.h"
#include "check/output_check.h"
#include "output_plan.h"
#include "reference.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "test_util.h"

namespace hk {
namespace {

using test::out_tensor;

// A top-k of 2 rows of 6: x, the kernel's indices [2, 3] and the reference's indices.
struct TopK {
  CasePlan plan;
  ref::Context ctx;
  std::vector<std::vector<uint8_t>> got;

  TopK(const std::vector<double>& kernel_indices, const std::vector<double>& reference_indices, bool unordered = false) {
    TensorPlan x = out_tensor(DType::bf16, {2, 6}, {}, "x");
    x.role = Role::in;
    TensorPlan idx = out_tensor(DType::i32, {2, 3}, {}, "indices");
    CheckPlan rule{"indices", {{"into", "x"}}, {{"into", 0}}};
    if (unordered) rule.numbers["unordered"] = 1;
    idx.checks.push_back(rule);
    plan.tensors = {x, idx};
    // Row 0 ties 5 at positions 1 and 4; row 1 is distinct.
    ctx.tensors["x"] = ref::Tensor{"x", "bf16", {2, 6}, {1, 5, 2, 7, 5, 0, 3, 9, 8, 1, 2, 4}};
    ctx.tensors["indices"] = ref::Tensor{"indices", "i32", {2, 3}, reference_indices};
    got = {{}, pack(DType::i32, kernel_indices)};
  }
  OutputMetrics judge() { return judge_output(CheckInput{plan, 1, got, ctx}); }
};

TEST(IndicesRule, ATieMayBeBrokenEitherWay) {
  // Row 0: 7, then the tied 5s: the reference takes index 1 first, the kernel index 4.
  const OutputMetrics m = TopK({3, 4, 1, 1, 2, 5}, {3, 1, 4, 1, 2, 5}).judge();
  EXPECT_TRUE(m.pass);
  EXPECT_EQ(m.compare, "indices");
  ASSERT_EQ(m.checks.size(), 1u);
  EXPECT_TRUE(m.checks[0].pass);
}

TEST(IndicesRule, AnIndexThatSelectsAnotherValueFails) {
  const OutputMetrics m = TopK({3, 4, 0, 1, 2, 5}, {3, 1, 4, 1, 2, 5}).judge();  // x[0][0] = 1, not 5
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.mismatches, 1);
  ASSERT_TRUE(m.first_mismatch);
  EXPECT_EQ(m.first_mismatch->index, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(m.first_mismatch->got, 1);
  EXPECT_EQ(m.first_mismatch->expected, 5);
}

TEST(IndicesRule, OutOfRangeAndRepeatedIndicesFailTheirCheck) {
  // The repeated 4 selects 5 twice, which equals the expected values: only the check catches it.
  OutputMetrics m = TopK({3, 4, 4, 1, 2, 5}, {3, 1, 4, 1, 2, 5}).judge();
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.mismatches, 0);
  EXPECT_EQ(m.checks[0].figures.at("rows_with_repeats"), 1);
  EXPECT_NE(m.checks[0].summary.find("row 0 repeats 4"), std::string::npos) << m.checks[0].summary;
  m = TopK({3, 1, 4, 1, 6, 5}, {3, 1, 4, 1, 2, 5}).judge();  // 6 is past the row of 6
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.checks[0].figures.at("out_of_range"), 1);
  EXPECT_NE(m.checks[0].summary.find("row 1 position 1 is 6"), std::string::npos) << m.checks[0].summary;
}

TEST(IndicesRule, AnUnwrittenIndexCountsAsUnwritten) {
  TopK t({3, 1, 4, 1, 2, 5}, {3, 1, 4, 1, 2, 5});
  write_poison(DType::i32, t.got[1].data() + 4 * 5);
  const OutputMetrics m = t.judge();
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.unwritten, 1);
}

TEST(IndicesRule, UnorderedAcceptsAnyOrderWithinARow) {
  EXPECT_FALSE(TopK({4, 3, 1, 5, 1, 2}, {3, 1, 4, 1, 2, 5}).judge().pass);
  EXPECT_TRUE(TopK({4, 3, 1, 5, 1, 2}, {3, 1, 4, 1, 2, 5}, true).judge().pass);
}

TEST(IndicesRule, AReferenceIndexOutOfRangeIsAnError) {
  EXPECT_THROW(TopK({3, 4, 1, 1, 2, 5}, {3, 1, 4, 1, 2, 6}).judge(), std::runtime_error);
}

TEST(UnorderedRule, RowsMatchAsMultisets) {
  CasePlan plan;
  TensorPlan t = out_tensor(DType::f32, {2, 3}, {}, "v");
  t.checks.push_back(CheckPlan{"unordered", {}, {}});
  plan.tensors = {t};
  ref::Context ctx;
  ctx.tensors["v"] = ref::Tensor{"v", "f32", {2, 3}, {1, 2, 3, 4, 5, 6}};
  std::vector<std::vector<uint8_t>> got = {pack(DType::f32, {3, 1, 2, 6, 4, 5})};
  EXPECT_TRUE(judge_output(CheckInput{plan, 0, got, ctx}).pass);
  got = {pack(DType::f32, {3, 1, 2, 6, 4, 4})};  // 5 became 4: a different multiset
  EXPECT_FALSE(judge_output(CheckInput{plan, 0, got, ctx}).pass);
  got = {pack(DType::f32, {3, 1, 2, 4, 5, 6})};
  write_poison(DType::f32, got[0].data());  // an unwritten element stays unwritten after sorting
  const OutputMetrics m = judge_output(CheckInput{plan, 0, got, ctx});
  EXPECT_EQ(m.unwritten, 1);
  EXPECT_EQ(m.compare, "unordered");
}

class RuleManifest : public ::testing::Test {
 protected:
  test::TempDir dir;
  static nlohmann::json kernel() {
    return nlohmann::json::parse(R"J({
      "name": "topk", "source": "k.cu", "entry": "topk", "reference": "topk", "params": {"M": 2, "N": 8, "K": 3},
      "cases": [{"name": "a"}],
      "tensors": [{"name": "x", "dtype": "f32", "shape": ["M", "N"], "role": "in", "init": {"kind": "normal"}},
                  {"name": "values", "dtype": "f32", "shape": ["M", "K"], "role": "out", "compare": "unordered"},
                  {"name": "indices", "dtype": "i32", "shape": ["M", "K"], "role": "out",
                   "compare": {"rule": "indices", "into": "x", "unordered": true}}],
      "args": ["values", "indices", "x"], "launch": {"grid": ["M"], "block": [32]}
    })J");
  }
  ManifestLoad load(const nlohmann::json& k) {
    dir.write("k.cu", "\n");
    return load_manifest(dir.write("m.json", nlohmann::json{{"hkcheck_manifest", 1}, {"kernels", {k}}}.dump()));
  }
  std::string error_of(const nlohmann::json& k) {
    const ManifestLoad m = load(k);
    return m.errors.empty() ? "" : m.errors[0];
  }
};

TEST_F(RuleManifest, RulesArePlannedPerCase) {
  const ManifestLoad m = load(kernel());
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  const CasePlan p = plan_case(m.kernels[0], m.kernels[0].cases[0]);
  ASSERT_EQ(p.tensors[1].checks.size(), 1u);
  EXPECT_EQ(p.tensors[1].checks[0].rule, "unordered");
  const CheckPlan& c = p.tensors[2].checks.at(0);
  EXPECT_EQ(c.rule, "indices");
  EXPECT_EQ(c.tensor("into"), 0);
  EXPECT_TRUE(c.flag("unordered"));
}

TEST_F(RuleManifest, ErrorsNameTheTensorAndTheRule) {
  nlohmann::json k = kernel();
  k["tensors"][2]["compare"]["rule"] = "sorted";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/compare/rule: unknown comparison rule 'sorted' (expected one of: elementwise, unordered, indices)"),
            std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][2]["compare"].erase("into");
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/compare/into: required field is missing"), std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][2]["compare"]["into"] = "nope";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/compare/into: case 'a': 'nope' is not another tensor"), std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][2]["compare"]["into"] = "values";
  EXPECT_NE(error_of(k).find("'values' is an output; indices are judged against an input"), std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][2]["dtype"] = "f32";
  EXPECT_NE(error_of(k).find("'indices' is f32; an index output needs an integer dtype"), std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][0]["shape"] = {"N"};
  EXPECT_NE(error_of(k).find("must agree on every dimension but the last"), std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][2]["compare"]["unordered"] = 1;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/compare/unordered: expected true or false"), std::string::npos) << error_of(k);
  k = kernel();
  k["tensors"][0]["compare"] = "unordered";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/compare: an input tensor is not compared"), std::string::npos) << error_of(k);
}

}  // namespace
}  // namespace hk

// The rules' table (model/) and their judges (check/) are two tables: a rule a manifest may name
// but nothing judges would throw mid-run.
TEST(CheckRules, EveryRuleAManifestMayNameHasAJudge) {
  for (const hk::CheckRule& r : hk::check_rules()) EXPECT_TRUE(hk::can_judge_by(r.name)) << r.name;
  EXPECT_FALSE(hk::can_judge_by("no_such_rule"));
}
