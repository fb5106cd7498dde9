#include "report.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "test_util.h"

namespace hk {
namespace {

std::vector<CaseResult> sample_results() {
  CaseResult pass;
  pass.kernel = "rmsnorm";
  pass.case_name = "M=7,N=4096";
  pass.params = {{"M", 7.0}, {"dtype", std::string("bf16")}};
  pass.status = Status::PASS;
  OutputMetrics m;
  m.name = "out";
  m.dtype = "bf16";
  m.shape = {7, 4096};
  m.numel = 7 * 4096;
  m.max_abs_diff = 0.0625;
  m.max_ulps = 1;
  pass.outputs.push_back(m);

  CaseResult fail = pass;
  fail.kernel = "rope|neox";  // a pipe must not break the table
  fail.status = Status::FAIL;
  fail.outputs[0].pass = false;
  fail.outputs[0].mismatches = 12;
  fail.outputs[0].max_abs_diff = NAN;  // JSON has no NaN
  fail.outputs[0].first_mismatch = ElementDiff{{1, 5}, 3.0, 2.0};

  CaseResult skip;
  skip.kernel = "ff_fused";
  skip.case_name = "big";
  skip.status = Status::SKIP;
  skip.reason = "HW_LIMIT";
  skip.limit = LimitExceeded{"dynamic shared memory per block (bytes)", 160000, 65536};

  CaseResult crash;
  crash.kernel = "bad";
  crash.case_name = "c";
  crash.status = Status::CRASH;
  crash.message = "cuCtxSynchronize failed: an illegal memory access was encountered";
  return {pass, fail, skip, crash};
}

RunInfo sample_run() {
  RunInfo run;
  run.hkcheck_version = "0.1.0";
  run.git_commit = "abc";
  run.spec.backend = "cuda";
  run.device = DeviceInfo{};
  run.device->name = "NVIDIA H100 80GB HBM3", run.device->arch = "sm_90";
  return run;
}

TEST(Report, JsonIsVersionedAndRoundTrips) {
  test::TempDir dir;
  std::string err;
  ASSERT_TRUE(write_reports(dir.path() + "/out", sample_run(), sample_results(), &err)) << err;
  std::ifstream in(dir.path() + "/out/test_results.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "hkcheck-results");
  EXPECT_EQ(j["schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(j["summary"]["total"], 4);
  EXPECT_EQ(j["summary"]["FAIL"], 1);
  EXPECT_EQ(j["run"]["device"]["arch"], "sm_90");
  const auto back = j["cases"].get<std::vector<CaseResult>>();
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[1].status, Status::FAIL);
  EXPECT_TRUE(std::isnan(back[1].outputs[0].max_abs_diff));
  EXPECT_EQ(back[1].outputs[0].first_mismatch->index, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(back[2].limit->requested, 160000);
  EXPECT_EQ(j["cases"][2]["limit"]["over_by"], 160000 - 65536);
  EXPECT_EQ(std::get<std::string>(back[0].params.at("dtype")), "bf16");
}

TEST(Report, MarkdownHasSummaryTableAndFailureSections) {
  RunInfo every = sample_run();
  every.markdown_every_case = true;
  EXPECT_NE(results_markdown(every, sample_results()).find("| rmsnorm | M=7,N=4096 | PASS | 0.0625 | out 1 ulp |"), std::string::npos);
  const std::string md = results_markdown(sample_run(), sample_results());
  EXPECT_NE(md.find("4 cases: 1 PASS, 1 FAIL, 1 CRASH, 0 TIMEOUT, 1 SKIP"), std::string::npos);
  EXPECT_NE(md.find("| Kernel | Cases | PASS | FAIL | CRASH | SKIP |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Kernel | Case | Status | Max diff | Notes |"), std::string::npos);
  EXPECT_EQ(md.find("| rmsnorm | M=7,N=4096 | PASS"), std::string::npos) << "passing cases are counted, not listed";
  EXPECT_NE(md.find("rope\\|neox"), std::string::npos);
  EXPECT_NE(md.find("HW_LIMIT: dynamic shared memory per block (bytes) requested 160000, limit 65536 (over by 94464)"), std::string::npos);
  EXPECT_NE(md.find("### bad / c — CRASH"), std::string::npos);
  EXPECT_NE(md.find("first mismatch at [1, 5]: got 3, expected 2"), std::string::npos);
  EXPECT_EQ(md.find("### rmsnorm"), std::string::npos);  // passing cases get no section
}

// A run of 3,000 failures still fits a pull-request comment, and says where the rest is.
TEST(Report, MarkdownFitsACommentHoweverManyCasesFail) {
  std::vector<CaseResult> many;
  for (int i = 0; i < 3000; ++i) {
    CaseResult r = sample_results()[1];
    r.case_name = "case " + std::to_string(i);
    r.message = std::string(300, 'x');
    many.push_back(r);
  }
  const std::string md = results_markdown(sample_run(), many);
  EXPECT_LT(md.size(), kMarkdownBudget);
  EXPECT_NE(md.find("more case(s) did not pass: see test_results.json"), std::string::npos);
  EXPECT_NE(md.find("their details are in test_results.json"), std::string::npos);
}

TEST(Report, WritingReplacesAtomically) {
  test::TempDir dir;
  std::string err;
  ASSERT_TRUE(write_reports(dir.path(), sample_run(), sample_results(), &err));
  ASSERT_TRUE(write_reports(dir.path(), sample_run(), {}, &err));
  std::ifstream in(dir.path() + "/test_results.json");
  EXPECT_EQ(nlohmann::json::parse(in)["summary"]["total"], 0);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "left behind: " << e.path();
}

TEST(Report, UnwritableFolderIsAnError) {
  std::string err;
  EXPECT_FALSE(write_reports("/proc/hkcheck_cannot_be_here", sample_run(), {}, &err));
  EXPECT_FALSE(err.empty());
}

}  // namespace
}  // namespace hk
