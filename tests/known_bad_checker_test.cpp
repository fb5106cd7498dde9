// The checker of the known-bad corpus, on results written by hand: it must accept a run with
// every declared verdict and reject one where a verdict is wrong or its proof is missing.
#include "known_bad_checker.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

using nlohmann::json;

KernelSpec kernel(const std::string& name, std::vector<ExpectedVerdict> expect) {
  KernelSpec k;
  k.name = name;
  k.expect = std::move(expect);
  k.cases = {CaseSpec{"n=1000", {}, {}}};
  return k;
}

json case_json(const std::string& kernel, const std::string& status, const json& actual = nullptr) {
  return {{"kernel", kernel}, {"case", "n=1000"}, {"status", status}, {"actual_status", actual}, {"reason", ""},
          {"message", ""}, {"outputs", json::array()}, {"guards", json::array()}, {"launches", 1},
          {"repeat_diffs", json::array()}, {"limit", nullptr}, {"timings_ms", {{"wall", 10.0}}}};
}

json checker_run_of(std::vector<json> cases, const std::string& arch = "sm_90") {
  return {{"run", {{"device", {{"arch", arch}}}}}, {"cases", cases}};
}

TEST(KnownBadChecker, AcceptsTheDeclaredVerdicts) {
  const std::vector<KernelSpec> corpus = {kernel("fault_copy_ok", {}), kernel("kb_write_past_end", {{"FAIL", "", "x"}})};
  json past = case_json("kb_write_past_end", "XFAIL", "FAIL");
  past["guards"] = {{{"tensor", "out"}, {"side", "after"}, {"bytes", 4}, {"first_offset", 0}, {"last_offset", 3}}};
  const auto problems = test::check_known_bad_run(checker_run_of({case_json("fault_copy_ok", "PASS"), past}), corpus);
  EXPECT_TRUE(problems.empty()) << problems[0];
}

TEST(KnownBadChecker, RejectsWrongVerdictsMissingCasesAndMissingProof) {
  const std::vector<KernelSpec> corpus = {kernel("fault_copy_ok", {}), kernel("kb_write_past_end", {{"FAIL", "", "x"}}),
                                          kernel("fault_trap", {{"CRASH", "", "x"}}), kernel("kb_nan_output", {{"FAIL", "", "x"}})};
  json past = case_json("kb_write_past_end", "XFAIL", "FAIL");  // but no guard bytes reported
  json trap = case_json("fault_trap", "XFAIL", "TIMEOUT");      // XFAIL over the wrong verdict
  const auto problems = test::check_known_bad_run(checker_run_of({case_json("fault_copy_ok", "FAIL"), past, trap}), corpus);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_NE(problems[0].find("fault_copy_ok / n=1000: declares no expectation, so it should PASS"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("kb_write_past_end / n=1000: guards should be"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("fault_trap / n=1000: should be XFAIL with CRASH underneath"), std::string::npos) << problems[2];
  EXPECT_NE(problems[3].find("kb_nan_output / n=1000: missing from the results"), std::string::npos) << problems[3];
}

TEST(KnownBadChecker, SkipReasonsAreTheVerdictUnderneath) {
  const std::vector<KernelSpec> corpus = {kernel("kb_too_large", {{"TOO_LARGE", "", "x"}})};
  json c = case_json("kb_too_large", "XFAIL", "SKIP");
  c["reason"] = "TOO_LARGE";
  c["limit"] = {{"what", "memory"}, {"requested", 10}, {"limit", 5}, {"over_by", 5}};
  EXPECT_TRUE(test::check_known_bad_run(checker_run_of({c}), corpus).empty());
  c["reason"] = "HW_LIMIT";
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({c}), corpus).size(), 1u);
}

// The wave64-only MLA bug: PASS is required where no expectation applies (sm_90); on gfx950 the
// FAIL must be the halved outputs, on gfx942 the shared memory over 64 KiB.
TEST(KnownBadChecker, ExpectationsPerArchForTheWave64OnlyBug) {
  const std::vector<KernelSpec> corpus = {
      kernel("kb_mla_wave64_denominator", {{"FAIL", "gfx950", "x"}, {"HW_LIMIT", "gfx942", "x"}})};
  json halved = case_json("kb_mla_wave64_denominator", "XFAIL", "FAIL");
  halved["outputs"] = {{{"rel_l2", 0.5}, {"unwritten", 0}, {"nonfinite", 0}, {"mismatches", 16381}, {"numel", 16384}}};
  EXPECT_TRUE(test::check_known_bad_run(checker_run_of({halved}, "gfx950"), corpus).empty());
  json other = halved;  // failing, but not by halving every output
  other["outputs"][0]["rel_l2"] = 0.1;
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({other}, "gfx950"), corpus).size(), 1u);
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({halved}, "sm_90"), corpus).size(), 1u);
  EXPECT_TRUE(test::check_known_bad_run(checker_run_of({case_json("kb_mla_wave64_denominator", "PASS")}, "sm_90"), corpus).empty());
  json skip = case_json("kb_mla_wave64_denominator", "XFAIL", "SKIP");
  skip["reason"] = "HW_LIMIT";
  skip["limit"] = {{"requested", 69632}, {"limit", 65536}, {"over_by", 4096}};
  EXPECT_TRUE(test::check_known_bad_run(checker_run_of({skip}, "gfx942"), corpus).empty());
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({skip}, "gfx950"), corpus).size(), 1u);
}

// The head-offset bug in the split/rope kernel: caught only as itself, head 0 right and heads
// 1.. wrong in q, k wrong, v right; a q wrong on every head is some other bug.
TEST(KnownBadChecker, HeadOffsetBugMustLeaveHeadZeroRight) {
  const std::vector<KernelSpec> corpus = {kernel("kb_qkv_rope_head_offset", {{"FAIL", "", "x"}})};
  const json batch = {{"dim", 0}, {"size", 7}, {"right", ""}, {"wrong", "0-6"}, {"wrong_count", 7}};
  const json heads = {{"dim", 1}, {"size", 8}, {"right", "0"}, {"wrong", "1-7"}, {"wrong_count", 7}};
  json c = case_json("kb_qkv_rope_head_offset", "XFAIL", "FAIL");
  c["outputs"] = {{{"name", "q"}, {"pass", false}, {"slices", {batch, heads}}},
                  {{"name", "k"}, {"pass", false}},
                  {{"name", "v"}, {"pass", true}}};
  const auto problems = test::check_known_bad_run(checker_run_of({c}), corpus);
  EXPECT_TRUE(problems.empty()) << problems[0];
  json all_heads = c;
  all_heads["outputs"][0]["slices"][1] = {{"dim", 1}, {"size", 8}, {"right", ""}, {"wrong", "0-7"}, {"wrong_count", 8}};
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({all_heads}), corpus).size(), 1u);
  json v_wrong = c;
  v_wrong["outputs"][2]["pass"] = false;
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({v_wrong}), corpus).size(), 1u);
}

// The f16 cos/sin table: its failure must be precision-sized (9e-4 on f32 outputs), not the
// error of a wrong index or a missing write.
TEST(KnownBadChecker, F16TableBugMustFailByItsPrecisionOnly) {
  const std::vector<KernelSpec> corpus = {kernel("kb_qkv_rope_f16_table", {{"FAIL", "", "x"}})};
  const json off = {{"pass", false}, {"dtype", "f32"}, {"max_abs_diff", 9e-4}, {"unwritten", 0}, {"nonfinite", 0}};
  json c = case_json("kb_qkv_rope_f16_table", "XFAIL", "FAIL");
  c["outputs"] = json::array({off, off, {{"name", "v"}, {"pass", true}}});
  c["outputs"][0]["name"] = "q";
  c["outputs"][1]["name"] = "k";
  const auto problems = test::check_known_bad_run(checker_run_of({c}), corpus);
  EXPECT_TRUE(problems.empty()) << problems[0];
  json wrong_index = c;
  wrong_index["outputs"][1]["max_abs_diff"] = 5.0;
  EXPECT_EQ(test::check_known_bad_run(checker_run_of({wrong_index}), corpus).size(), 1u);
  json bf16 = c;  // half a bf16 ulp on top is still the table's precision
  bf16["outputs"][0]["dtype"] = "bf16";
  bf16["outputs"][0]["max_abs_diff"] = 8.5e-3;
  EXPECT_TRUE(test::check_known_bad_run(checker_run_of({bf16}), corpus).empty());
}

}  // namespace
}  // namespace hk
