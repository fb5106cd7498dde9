#include "report/results_diff.h"

#include <gtest/gtest.h>

#include <fstream>

namespace hk {
namespace {

using nlohmann::json;

ResultsDocument diff_run_of(std::vector<CaseResult> cases) {
  ResultsDocument d;
  d.cases = std::move(cases);
  return d;
}
CaseResult c(const std::string& k, const std::string& name, const std::string& status, const std::string& reason = "") {
  CaseResult r;
  r.kernel = k, r.case_name = name, r.status = *parse_status(status), r.reason = reason;
  return r;
}
CaseResult xfail(const std::string& name, Status underneath) {
  CaseResult r = c("k", name, "XFAIL");
  r.actual_status = underneath;
  return r;
}

TEST(ResultsDiff, SameVerdictsDoNotDiffer) {
  const ResultsDocument a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "CRASH")});
  const ResultsDiff d = diff_results(a, a);
  EXPECT_EQ(d.compared, 2);
  EXPECT_TRUE(d.changed.empty());
}

TEST(ResultsDiff, AChangedVerdictOrSkipReasonIsReported) {
  const ResultsDocument a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "SKIP", "HW_LIMIT"), c("k", "3", "PASS")});
  const ResultsDocument b = diff_run_of({c("k", "1", "FAIL"), c("k", "2", "PASS"), c("k", "3", "PASS")});
  const ResultsDiff d = diff_results(a, b);
  ASSERT_EQ(d.changed.size(), 2u);
  EXPECT_EQ(d.changed[0].before, "PASS");
  EXPECT_EQ(d.changed[0].after, "FAIL");
  EXPECT_EQ(d.changed[1].before, "SKIP (HW_LIMIT)");
}

TEST(ResultsDiff, CasesNotRunInBothAreListedNotCompared) {
  const ResultsDocument a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "PASS"), c("k", "only_a", "PASS")});
  const ResultsDocument b = diff_run_of({c("k", "1", "SKIP", "TIER"), c("k", "2", "PASS"), c("k", "only_b", "FAIL")});
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
  const CaseResult crash = xfail("1", Status::CRASH), timeout = xfail("1", Status::TIMEOUT);
  const ResultsDiff d = diff_results(diff_run_of({crash}), diff_run_of({timeout}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].before, "XFAIL [CRASH]");
  EXPECT_TRUE(diff_results(diff_run_of({crash}), diff_run_of({crash})).changed.empty());
}

// An expect for one arch (a wave64 kernel declared FAIL on sm_90) is XFAIL there and PASS on the
// other device: a device difference, in either direction; an XFAIL that became a FAIL is not.
TEST(ResultsDiff, AVerdictDeclaredForOneDeviceIsADeviceDifference) {
  const ResultsDiff d = diff_results(diff_run_of({xfail("1", Status::FAIL), c("k", "2", "PASS")}),
                                     diff_run_of({c("k", "1", "PASS"), xfail("2", Status::FAIL)}));
  ASSERT_EQ(d.changed.size(), 2u);
  for (const VerdictChange& v : d.changed) EXPECT_EQ(v.kind, ChangeKind::device) << v.case_name;
  const ResultsDiff worse = diff_results(diff_run_of({xfail("1", Status::FAIL)}), diff_run_of({c("k", "1", "FAIL")}));
  ASSERT_EQ(worse.changed.size(), 1u);
  EXPECT_EQ(worse.changed[0].kind, ChangeKind::regression);
}

ResultsDocument fixture(const std::string& name) {
  std::ifstream in(std::string(REPO_DIR) + "/tests/fixtures/diff/" + name);
  return json::parse(in).get<ResultsDocument>();
}

const VerdictChange* change_of(const ResultsDiff& d, const std::string& name) {
  for (const VerdictChange& c : d.changed)
    if (c.case_name == name) return &c;
  return nullptr;
}

// An NVIDIA and an AMD run with every kind of change, read in both directions.
TEST(ResultsDiff, EveryKindOfChangeBetweenVendorsInBothDirections) {
  const ResultsDocument nv = fixture("h100.json"), amd = fixture("mi325x.json");
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
  EXPECT_TRUE(d.lost.empty()) << "B is of schema 1: what it selected is not known";
  EXPECT_EQ(j["regressions"], 2);
  EXPECT_EQ(j["a"]["arch"], "sm_90");
}

TEST(ResultsDiff, KernelTimesAreComparedOnTheSameDevice) {
  ResultsDocument a = fixture("h100.json"), b = a;
  for (CaseResult& r : b.cases) r.timings.kernel_ms = 1.0;
  EXPECT_TRUE(diff_results(a, b).metrics.empty()) << "single launches timed with a host clock are not compared";
  for (CaseResult& r : a.cases) r.timing = KernelTiming{20, 0.1, 0.1, 0.1, 0, 0};
  for (CaseResult& r : b.cases) r.timing = KernelTiming{20, 1.0, 1.0, 1.0, 0, 0};
  const ResultsDiff d = diff_results(a, b);
  EXPECT_FALSE(d.metrics.empty());
  EXPECT_EQ(d.metrics[0].what, "kernel ms");
}

// Two records of one case: which to compare would be a guess, so the diff is refused.
TEST(ResultsDiff, ACaseRecordedTwiceIsAnError) {
  const ResultsDocument twice = diff_run_of({c("k", "1", "PASS"), c("k", "1", "FAIL")});
  try {
    diff_results(diff_run_of({c("k", "1", "PASS")}), twice);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("run B holds case k/1 more than once"), std::string::npos) << e.what();
  }
  EXPECT_THROW(diff_results(twice, diff_run_of({})), std::runtime_error);
}

// What B lost against A is listed, and counts as a change: an interrupt, a manifest error (a
// kernel left out), NOT_RUN cases, cases of A it does not have.
TEST(ResultsDiff, WhatBLostIsListed) {
  const ResultsDocument a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "PASS"), c("gone", "1", "PASS")});
  ResultsDocument b = diff_run_of({c("k", "1", "PASS"), c("k", "2", "NOT_RUN")});
  EXPECT_EQ(diff_results(a, a).lost.size(), 0u);
  ResultsDiff d = diff_results(a, b);
  EXPECT_TRUE(d.changed.empty());
  ASSERT_EQ(d.lost.size(), 2u);
  EXPECT_EQ(d.lost[0], "1 case(s) of B are NOT_RUN");
  EXPECT_EQ(d.lost[1], "kernel gone: 1 case(s) of A are not in B");
  b.run.interrupted = "SIGINT";
  b.run.manifest_errors = {"m.json: /kernels/0/name: expected a string"};
  d = diff_results(a, b);
  ASSERT_EQ(d.lost.size(), 4u);
  EXPECT_EQ(d.lost[0], "B was interrupted by SIGINT");
  EXPECT_NE(diff_markdown(a, b, d).find("## Lost in B (4)"), std::string::npos);
  EXPECT_EQ(diff_json(a, b, d)["lost"].size(), 4u);
  // A run of some kernels, some cases or one shard did not lose the others.
  for (const SelectionSpec& some : {SelectionSpec{{"k"}, {}, {}, "", "", ""}, SelectionSpec{{}, {"1"}, {}, "", "", ""},
                                    SelectionSpec{{}, {}, {}, "", "1/2", ""}}) {
    ResultsDocument part = diff_run_of({c("k", "1", "PASS"), c("k", "2", "PASS")});
    part.run.spec.selection = some;
    EXPECT_TRUE(diff_results(a, part).lost.empty()) << json(some).dump();
  }
}

// Both --fail-on policies but never fail on what B lost: a kernel B lost to a manifest error, a
// case B did not run. A fix alone fails only --fail-on change.
TEST(ResultsDiff, WhatBLostFailsChangeAndRegression) {
  const ResultsDocument a = diff_run_of({c("k", "1", "PASS"), c("k", "2", "PASS"), c("gone", "1", "PASS")});
  const ResultsDiff same = diff_results(a, a);
  for (const char* policy : {"change", "regression", "never"}) EXPECT_FALSE(fails_on(same, policy)) << policy;
  ResultsDocument lost_kernel = diff_run_of({c("k", "1", "PASS"), c("k", "2", "PASS")});
  lost_kernel.run.manifest_errors = {"m.json: /kernels/1/launch/block: expected an array of 1 to 3 expressions"};
  const ResultsDocument not_run = diff_run_of({c("k", "1", "PASS"), c("k", "2", "NOT_RUN"), c("gone", "1", "PASS")});
  for (const ResultsDocument* b : std::vector<const ResultsDocument*>{&lost_kernel, &not_run}) {
    const ResultsDiff d = diff_results(a, *b);
    EXPECT_EQ(d.count(ChangeKind::regression), 0u);
    EXPECT_TRUE(fails_on(d, "change"));
    EXPECT_TRUE(fails_on(d, "regression"));
    EXPECT_FALSE(fails_on(d, "never"));
  }
  const ResultsDiff fixed = diff_results(diff_run_of({c("k", "1", "FAIL")}), diff_run_of({c("k", "1", "PASS")}));
  EXPECT_TRUE(fails_on(fixed, "change"));
  EXPECT_FALSE(fails_on(fixed, "regression"));
  EXPECT_THROW(fails_on(fixed, "sometimes"), std::invalid_argument);
}

// Thousands of regressions, kernels run on one side only and lines B lost: the markdown still fits
// a pull-request comment, and each list says how many it left out and where they all are.
TEST(ResultsDiff, MarkdownFitsACommentWithThousandsOfRegressions) {
  std::vector<CaseResult> before, after;
  for (int i = 0; i < 3000; ++i) {
    const std::string kernel = "kernel_with_a_long_name_" + std::to_string(i % 700), name = "case_" + std::to_string(i) + std::string(60, 'n');
    before.push_back(c(kernel, name, "PASS"));
    after.push_back(c(kernel, name, "FAIL"));
    before.push_back(c("only_in_a_" + std::to_string(i), "1", "PASS"));
  }
  ResultsDocument b = diff_run_of(after);
  for (int i = 0; i < 2000; ++i) b.run.manifest_errors.push_back("manifests/m" + std::to_string(i) + ".json: " + std::string(100, 'e'));
  const ResultsDocument a = diff_run_of(before);
  const ResultsDiff d = diff_results(a, b);
  ASSERT_EQ(d.count(ChangeKind::regression), 3000u);
  const std::string md = diff_markdown(a, b, d);
  EXPECT_LT(md.size(), kDiffMarkdownBudget);
  EXPECT_NE(md.find("3000 regression(s)"), std::string::npos) << "the counts are whole";
  EXPECT_NE(md.find("more case(s) of this kind: `hkcheck diff --json FILE` lists every one"), std::string::npos);
  EXPECT_NE(md.find("more kernel(s) with cases not run in both"), std::string::npos);
  EXPECT_NE(md.find("more line(s) of what B lost"), std::string::npos);
}

// A results file of the first schema (every committed run) still reads, with its run record.
TEST(ResultsDiff, ResultsOfSchemaOneStillRead) {
  const ResultsDocument nv = fixture("h100.json");
  EXPECT_EQ(nv.schema_version, 1);
  EXPECT_EQ(nv.run.spec.backend, "cuda");
  ASSERT_TRUE(nv.run.device.has_value());
  EXPECT_EQ(nv.run.device->arch, "sm_90");
  std::ifstream in(std::string(REPO_DIR) + "/results/h100/test_results.json");
  const ResultsDocument committed = json::parse(in).get<ResultsDocument>();
  EXPECT_GT(committed.cases.size(), 1000u);
  EXPECT_EQ(committed.run.spec.source_vendor, "cuda");
}

// A version this hkcheck does not know is refused, naming the field.
TEST(ResultsDiff, AnUnknownSchemaVersionIsRefused) {
  json j = diff_run_of({c("k", "1", "PASS")});
  j["schema_version"] = 99;
  try {
    j.get<ResultsDocument>();
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/schema_version: 99 is not a version"), std::string::npos) << e.what();
  }
  j["schema_version"] = kResultsSchemaVersion;
  EXPECT_EQ(j.get<ResultsDocument>().cases.size(), 1u) << "and the current one round-trips";
  j.erase("schema");
  EXPECT_THROW(j.get<ResultsDocument>(), std::runtime_error);
}

}  // namespace
}  // namespace hk
