#include "results_diff.h"

#include <gtest/gtest.h>

#include <fstream>

namespace hk {
namespace {

using nlohmann::json;

json diff_run_of(std::vector<json> cases) { return {{"schema_version", 1}, {"cases", cases}}; }
json c(const std::string& k, const std::string& name, const std::string& status, const std::string& reason = "") {
  return {{"kernel", k}, {"case", name}, {"status", status}, {"reason", reason}};
}

TEST(ResultsDiff, SameVerdictsDoNotDiffer) {
  const json a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "CRASH")});
  const ResultsDiff d = diff_results(a, a);
  EXPECT_EQ(d.compared, 2);
  EXPECT_TRUE(d.changed.empty());
}

TEST(ResultsDiff, AChangedVerdictOrSkipReasonIsReported) {
  const json a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "SKIP", "HW_LIMIT"), c("k", "3", "PASS")});
  const json b = diff_run_of({c("k", "1", "FAIL"), c("k", "2", "PASS"), c("k", "3", "PASS")});
  const ResultsDiff d = diff_results(a, b);
  ASSERT_EQ(d.changed.size(), 2u);
  EXPECT_EQ(d.changed[0].before, "PASS");
  EXPECT_EQ(d.changed[0].after, "FAIL");
  EXPECT_EQ(d.changed[1].before, "SKIP (HW_LIMIT)");
}

TEST(ResultsDiff, CasesNotRunInBothAreListedNotCompared) {
  const json a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "PASS"), c("k", "only_a", "PASS")});
  const json b = diff_run_of({c("k", "1", "SKIP", "TIER"), c("k", "2", "PASS"), c("k", "only_b", "FAIL")});
  const ResultsDiff d = diff_results(a, b);
  EXPECT_EQ(d.compared, 1);
  EXPECT_TRUE(d.changed.empty());
  EXPECT_EQ(d.missing.size(), 3u);
}

// A kernel with one vendor's file passes on that vendor's GPU and is SKIP NOT_FOR_VENDOR on the
// other's: not run there, not a regression.
TEST(ResultsDiff, AKernelOfTheOtherVendorIsNotRunNotARegression) {
  const ResultsDiff d = diff_results(diff_run_of({c("cuda_only", "1", "PASS"), c("k", "1", "PASS")}),
                                     diff_run_of({c("cuda_only", "1", "SKIP", "NOT_FOR_VENDOR"), c("k", "1", "PASS")}));
  EXPECT_EQ(d.compared, 1);
  EXPECT_TRUE(d.changed.empty());
  ASSERT_EQ(d.missing.size(), 1u);
  EXPECT_EQ(d.missing[0].kernel, "cuda_only");
}

TEST(ResultsDiff, ExpectedFailuresAreComparedByTheVerdictUnderneath) {
  json crash = c("k", "1", "XFAIL"), timeout = c("k", "1", "XFAIL");
  crash["actual_status"] = "CRASH";
  timeout["actual_status"] = "TIMEOUT";
  const ResultsDiff d = diff_results(diff_run_of({crash}), diff_run_of({timeout}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].before, "XFAIL [CRASH]");
  EXPECT_TRUE(diff_results(diff_run_of({crash}), diff_run_of({crash})).changed.empty());
}

// An expect for one arch (a wave64 kernel declared FAIL on sm_90) is XFAIL there and PASS on the
// other device: a device difference, in either direction; an XFAIL that became a FAIL is not.
TEST(ResultsDiff, AVerdictDeclaredForOneDeviceIsADeviceDifference) {
  json xfail = c("k", "1", "XFAIL");
  xfail["actual_status"] = "FAIL";
  json xfail2 = xfail;
  xfail2["case"] = "2";
  const ResultsDiff d = diff_results(diff_run_of({xfail, c("k", "2", "PASS")}), diff_run_of({c("k", "1", "PASS"), xfail2}));
  ASSERT_EQ(d.changed.size(), 2u);
  for (const VerdictChange& v : d.changed) EXPECT_EQ(v.kind, ChangeKind::device) << v.case_name;
  const ResultsDiff worse = diff_results(diff_run_of({xfail}), diff_run_of({c("k", "1", "FAIL")}));
  ASSERT_EQ(worse.changed.size(), 1u);
  EXPECT_EQ(worse.changed[0].kind, ChangeKind::regression);
}

json fixture(const std::string& name) {
  std::ifstream in(std::string(REPO_DIR) + "/tests/fixtures/diff/" + name);
  return json::parse(in);
}

const VerdictChange* change_of(const ResultsDiff& d, const std::string& name) {
  for (const VerdictChange& c : d.changed)
    if (c.case_name == name) return &c;
  return nullptr;
}

// An NVIDIA and an AMD run with every kind of change, read in both directions.
TEST(ResultsDiff, EveryKindOfChangeBetweenVendorsInBothDirections) {
  const json nv = fixture("h100.json"), amd = fixture("mi325x.json");
  const ResultsDiff d = diff_results(nv, amd);
  EXPECT_EQ(d.compared, 8);
  EXPECT_EQ(change_of(d, "regressed")->kind, ChangeKind::regression);
  EXPECT_EQ(change_of(d, "xfail")->kind, ChangeKind::regression);  // XFAIL [CRASH] to FAIL: no longer as declared
  EXPECT_EQ(change_of(d, "fixed")->kind, ChangeKind::fix);
  EXPECT_EQ(change_of(d, "hw_a")->kind, ChangeKind::device);
  EXPECT_EQ(change_of(d, "hw_b")->kind, ChangeKind::device);
  EXPECT_EQ(change_of(d, "other")->kind, ChangeKind::other);
  EXPECT_EQ(change_of(d, "same"), nullptr);
  EXPECT_EQ(d.changed.front().kind, ChangeKind::regression) << "regressions come first";
  ASSERT_EQ(d.metrics.size(), 1u) << "ulps moved; kernel times of two kinds of device are not compared";
  EXPECT_EQ(d.metrics[0].what, "out max ulps");
  EXPECT_EQ(d.missing.size(), 3u);  // only_a, only_b, and tier (not run in A)

  const ResultsDiff back = diff_results(amd, nv);
  EXPECT_EQ(change_of(back, "regressed")->kind, ChangeKind::fix);
  EXPECT_EQ(change_of(back, "fixed")->kind, ChangeKind::regression);
  EXPECT_EQ(change_of(back, "hw_a")->kind, ChangeKind::device);
  EXPECT_EQ(change_of(back, "xfail")->kind, ChangeKind::fix);  // FAIL to XFAIL [CRASH]: as declared again
  EXPECT_EQ(back.count(ChangeKind::regression), 1u);

  const std::string md = diff_markdown(nv, amd, d);
  for (const char* s : {"| A | NVIDIA H100 80GB HBM3 | sm_90 | cuda |", "| B | AMD Instinct MI325X | gfx942 | hip |", "## regression (2)",
                        "## fix (1)", "## device difference (2)", "## other change (1)", "| silu | ulps | out max ulps | 1 | 8 |",
                        "| gemm | 1 not run in both, 1 only in A, 1 only in B |"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
  const json j = diff_json(nv, amd, d);
  EXPECT_EQ(j["regressions"], 2);
  EXPECT_EQ(j["a"]["arch"], "sm_90");
}

TEST(ResultsDiff, KernelTimesAreComparedOnTheSameDevice) {
  json a = fixture("h100.json"), b = a;
  for (json& c : b["cases"]) c["timings_ms"]["kernel"] = 1.0;
  EXPECT_TRUE(diff_results(a, b).metrics.empty()) << "single launches timed with a host clock are not compared";
  for (json& c : a["cases"]) c["timing"] = {{"median_ms", 0.1}};
  for (json& c : b["cases"]) c["timing"] = {{"median_ms", 1.0}};
  const ResultsDiff d = diff_results(a, b);
  EXPECT_FALSE(d.metrics.empty());
  EXPECT_EQ(d.metrics[0].what, "kernel ms");
}

TEST(ResultsDiff, NotAResultsDocumentIsAnError) { EXPECT_THROW(diff_results(json::object(), diff_run_of({})), std::runtime_error); }

}  // namespace
}  // namespace hk
