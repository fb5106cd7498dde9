#include "report/report.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "util/report_text.h"
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

// A skip the run chose (the other vendor's kernel) is counted, not listed among the cases that
// did not pass; a hardware limit is listed.
TEST(Report, AKernelOfTheOtherVendorIsCountedNotListed) {
  std::vector<CaseResult> results = sample_results();
  CaseResult other;
  other.kernel = "cuda_only";
  other.case_name = "n=5";
  other.status = Status::SKIP;
  other.reason = "NOT_FOR_VENDOR";
  other.message = "the manifest gives this kernel a CUDA file only";
  results.push_back(other);
  const std::string md = results_markdown(sample_run(), results);
  EXPECT_NE(md.find("5 cases: 1 PASS, 1 FAIL, 1 CRASH, 0 TIMEOUT, 2 SKIP"), std::string::npos) << md;
  EXPECT_EQ(md.find("| cuda_only | n=5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ff_fused | big |"), std::string::npos) << md;
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

// What a kernel controls, made to break the reports: bytes that are not UTF-8, a code fence, a
// heading, a mention and HTML, in its output (the CRASH message), its compiler's log, its notes
// and its case's name.
CaseResult hostile_case() {
  CaseResult r;
  r.kernel = "k";
  r.case_name = "c\n# Case heading @octocat <b>x</b>";
  r.status = Status::CRASH;
  r.message = "its output: \xff\xfe\n```\n# Injected heading\n@octocat <img src=x onerror=alert(1)>\n``````\n";
  r.compile_log = "k.cu(1): #error ```` @octocat \xc0\n";
  r.notes = {"worker output: \n## Note heading @octocat\r\n"};
  return r;
}

// The lines of md outside fenced code blocks, as a CommonMark reader sees the fences.
std::vector<std::string> prose_lines(const std::string& md) {
  std::vector<std::string> prose;
  std::string fence;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    const size_t ticks = line.find_first_not_of('`');
    const size_t run = ticks == std::string::npos ? line.size() : ticks;
    if (fence.empty() && run >= 3) fence = line.substr(0, run);
    else if (!fence.empty() && run >= fence.size() && line.find_first_not_of(" \t", run) == std::string::npos) fence.clear();
    else if (fence.empty()) prose.push_back(line);
  }
  EXPECT_TRUE(fence.empty()) << "a code block is never closed";
  return prose;
}

TEST(Report, KernelTextCannotBreakTheMarkdown) {
  const std::string md = results_markdown(sample_run(), {hostile_case()});
  EXPECT_TRUE(is_valid_utf8(md));
  EXPECT_NE(md.find("\\xff\\xfe"), std::string::npos) << "bytes that are not UTF-8 are shown escaped";
  EXPECT_EQ(md.find('\r'), std::string::npos);
  for (const std::string& line : prose_lines(md)) {
    EXPECT_EQ(line.find("@octocat"), std::string::npos) << "a mention outside code: " << line;
    EXPECT_EQ(line.find("<img"), std::string::npos) << "HTML outside code: " << line;
    EXPECT_EQ(line.find("<b>"), std::string::npos) << "HTML outside code: " << line;
    EXPECT_NE(line.rfind("# Injected", 0), 0u) << "the kernel's heading: " << line;
    EXPECT_NE(line.rfind("# Case heading", 0), 0u) << "the case name's heading: " << line;
    EXPECT_NE(line.rfind("## Note heading", 0), 0u) << "the note's heading: " << line;
  }
}

// Hundreds of kernels that do not compile, each with a long log and a long message, and hundreds
// of manifest errors: the markdown still fits a comment, the logs are summed up per log with the
// kernels they failed, and each list says how much more test_results.json holds.
TEST(Report, MarkdownFitsACommentWithHundredsOfCompileErrors) {
  std::vector<CaseResult> broken;
  for (int k = 0; k < 400; ++k) {
    for (int c = 0; c < 3; ++c) {
      CaseResult r;
      r.kernel = "broken_kernel_" + std::to_string(k);
      r.case_name = "case " + std::to_string(c);
      r.status = Status::COMPILE_ERROR;
      std::string log;
      for (int line = 0; line < 200; ++line) log += "broken_" + std::to_string(k) + ".cu(" + std::to_string(line) + "): error: something is wrong here\n";
      r.compile_log = log;
      r.message = r.kernel + " does not compile: " + log;
      broken.push_back(r);
    }
  }
  RunInfo run = sample_run();
  for (int i = 0; i < 300; ++i) run.manifest_errors.push_back("manifests/m" + std::to_string(i) + ".json: /kernels/0/tensors: " + std::string(200, 'e'));
  const std::string md = results_markdown(run, broken);
  EXPECT_LT(md.size(), kMarkdownBudget);
  EXPECT_TRUE(is_valid_utf8(md));
  EXPECT_NE(md.find("more manifest error(s): see test_results.json"), std::string::npos);
  EXPECT_NE(md.find("more kernel(s): see test_results.json"), std::string::npos);
  EXPECT_NE(md.find("more case(s) did not pass: see test_results.json"), std::string::npos);
  EXPECT_NE(md.find("## Compile logs"), std::string::npos) << "the details leave room for the first logs";
  EXPECT_NE(md.find("\n\nFailed `broken_kernel_"), std::string::npos) << "each log names the kernels it failed";
  EXPECT_NE(md.find("more line(s): test_results.json, `compile_logs.log-"), std::string::npos);
  EXPECT_NE(md.find("more compile log(s): see test_results.json (`compile_logs`)"), std::string::npos);
  prose_lines(md);  // every code block is closed
}

// --md-every-case asks for everything: no budget.
TEST(Report, EveryCaseMeansEveryCase) {
  std::vector<CaseResult> many;
  for (int i = 0; i < 3000; ++i) {
    CaseResult r = sample_results()[0];
    r.case_name = "case " + std::to_string(i);
    many.push_back(r);
  }
  RunInfo run = sample_run();
  run.markdown_every_case = true;
  const std::string md = results_markdown(run, many);
  EXPECT_GT(md.size(), kMarkdownBudget);
  EXPECT_NE(md.find("| rmsnorm | case 2999 | PASS"), std::string::npos);
}

TEST(Report, JsonEscapesBytesThatAreNotUtf8) {
  test::TempDir dir;
  std::string err;
  ASSERT_TRUE(write_reports(dir.path(), sample_run(), {hostile_case()}, &err)) << err;
  const std::string text = test::slurp(dir.path() + "/test_results.json");
  EXPECT_TRUE(is_valid_utf8(text));
  const auto j = nlohmann::json::parse(text);
  EXPECT_NE(j["cases"][0]["message"].get<std::string>().find("\\xff\\xfe"), std::string::npos) << "escaped, as in the markdown";
  EXPECT_TRUE(is_valid_utf8(test::slurp(dir.path() + "/test_results.md")));
}

TEST(Report, UnwritableFolderIsAnError) {
  std::string err;
  EXPECT_FALSE(write_reports("/proc/hkcheck_cannot_be_here", sample_run(), {}, &err));
  EXPECT_FALSE(err.empty());
}

}  // namespace
}  // namespace hk
