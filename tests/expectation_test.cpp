// Expected verdicts: the manifest field, which declaration applies on which device, and how a
// result becomes XFAIL, XPASS or stays what it is; and the parent applying it to a worker that
// crashed (tests/fake_worker.cpp), which the worker itself could never report.
#include "check/apply_expectation.h"
#include "model/expectation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/report.h"
#include "run/runner.h"
#include "test_util.h"
#include "model/manifest_load.h"

namespace hk {
namespace {

using nlohmann::json;

CaseResult result(Status s, const std::string& reason = "") {
  CaseResult r;
  r.kernel = "k";
  r.case_name = "c";
  r.status = s;
  r.reason = reason;
  return r;
}

TEST(Expectation, MatchingVerdictIsXfailAndKeepsTheActualStatus) {
  const CaseResult r = apply_expectation(result(Status::CRASH), ExpectedVerdict{"CRASH", "", "writes through a null pointer"});
  EXPECT_EQ(r.status, Status::XFAIL);
  ASSERT_TRUE(r.actual_status);
  EXPECT_EQ(*r.actual_status, Status::CRASH);
  EXPECT_TRUE(status_ok(r.status));
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("writes through a null pointer"), std::string::npos);
}

TEST(Expectation, SkipReasonsAreMatchedByName) {
  EXPECT_EQ(apply_expectation(result(Status::SKIP, "HW_LIMIT"), ExpectedVerdict{"HW_LIMIT", "", "x"}).status, Status::XFAIL);
  EXPECT_EQ(apply_expectation(result(Status::SKIP, "TOO_LARGE"), ExpectedVerdict{"TOO_LARGE", "", "x"}).status, Status::XFAIL);
  // A skip for another reason stays a skip: nothing was learnt about the kernel.
  const CaseResult r = apply_expectation(result(Status::SKIP, "NO_DEVICE"), ExpectedVerdict{"HW_LIMIT", "", "x"});
  EXPECT_EQ(r.status, Status::SKIP);
  EXPECT_FALSE(r.actual_status);
}

TEST(Expectation, PassingIsXpassAndFailsTheRun) {
  const CaseResult r = apply_expectation(result(Status::PASS), ExpectedVerdict{"FAIL", "", "bug 12"});
  EXPECT_EQ(r.status, Status::XPASS);
  EXPECT_EQ(*r.actual_status, Status::PASS);
  EXPECT_FALSE(status_ok(r.status));
}

TEST(Expectation, AnotherFailureKeepsItsStatusWithANote) {
  const CaseResult r = apply_expectation(result(Status::TIMEOUT), ExpectedVerdict{"CRASH", "", "x"});
  EXPECT_EQ(r.status, Status::TIMEOUT);
  EXPECT_FALSE(r.actual_status);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("expected CRASH"), std::string::npos);
  EXPECT_NE(r.notes.back().find("TIMEOUT"), std::string::npos);
}

TEST(Expectation, NoExpectationChangesNothing) {
  const CaseResult r = apply_expectation(result(Status::FAIL), std::nullopt);
  EXPECT_EQ(r.status, Status::FAIL);
  EXPECT_FALSE(r.expected);
}

TEST(Expectation, ArchSpecificWinsAndOtherArchsDoNotApply) {
  const std::vector<ExpectedVerdict> d = {{"FAIL", "", "everywhere"}, {"HW_LIMIT", "gfx942", "64 KiB LDS"}};
  EXPECT_EQ(expectation_for(d, "gfx942")->status, "HW_LIMIT");
  EXPECT_EQ(expectation_for(d, "sm_90")->status, "FAIL");
  EXPECT_FALSE(expectation_for({{"HW_LIMIT", "gfx942", "x"}}, "sm_90"));
}

// "host": the host backend under every profile (its arch is the emulated GPU's), never a GPU of that arch.
TEST(Expectation, HostAppliesOnTheHostBackendOnlyAfterTheArchsOwn) {
  const std::vector<ExpectedVerdict> d = {{"FAIL", "host", "only the host sees it"}};
  EXPECT_EQ(expectation_for(d, "sm_90", true)->status, "FAIL");
  EXPECT_EQ(expectation_for(d, "gfx942", true)->status, "FAIL");
  EXPECT_FALSE(expectation_for(d, "sm_90", false));
  const std::vector<ExpectedVerdict> both = {{"CRASH", "", "everywhere"}, {"FAIL", "host", "h"}, {"HW_LIMIT", "gfx942", "l"}};
  EXPECT_EQ(expectation_for(both, "gfx942", true)->status, "HW_LIMIT");
  EXPECT_EQ(expectation_for(both, "sm_90", true)->status, "FAIL");
  EXPECT_EQ(expectation_for(both, "sm_90", false)->status, "CRASH");
}

TEST(Expectation, CaseDeclarationsComeBeforeTheKernels) {
  KernelSpec k;
  k.expect = {{"FAIL", "", "kernel-wide"}};
  CaseSpec with{"c1", {}, {}, "small", {{"CRASH", "sm_90", "only this case on Hopper"}}, std::nullopt};
  CaseSpec without{"c2", {}, {}};
  EXPECT_EQ(case_expectation(k, with, "sm_90")->status, "CRASH");
  EXPECT_EQ(case_expectation(k, with, "gfx942")->status, "FAIL");
  EXPECT_EQ(case_expectation(k, without, "sm_90")->status, "FAIL");
}

TEST(Expectation, NewStatusesRoundTripThroughJson) {
  CaseResult r = apply_expectation(result(Status::FLAKY), ExpectedVerdict{"FLAKY", "sm_90", "race"});
  r.launches = 3;
  r.repeat_diffs = {{"out", 2, 17}};
  r.guards = {{"out", "after", 4, 0, 3}};
  const json j = r;
  EXPECT_EQ(j["status"], "XFAIL");
  EXPECT_EQ(j["actual_status"], "FLAKY");
  EXPECT_EQ(j["expected"]["arch"], "sm_90");
  const CaseResult back = j.get<CaseResult>();
  EXPECT_EQ(back.status, Status::XFAIL);
  EXPECT_EQ(*back.actual_status, Status::FLAKY);
  EXPECT_EQ(back.launches, 3);
  ASSERT_EQ(back.repeat_diffs.size(), 1u);
  EXPECT_EQ(back.repeat_diffs[0].elements, 17);
  ASSERT_EQ(back.guards.size(), 1u);
  EXPECT_EQ(back.guards[0].last_offset, 3);
}

TEST(Expectation, CountsAndSummaryNameTheNewStatuses) {
  const Counts c = count_results({result(Status::FLAKY), result(Status::XFAIL), result(Status::XPASS), result(Status::PASS)});
  EXPECT_EQ(c[Status::FLAKY], 1);
  EXPECT_EQ(c[Status::XFAIL], 1);
  EXPECT_EQ(c[Status::XPASS], 1);
  EXPECT_TRUE(c.any_failed());
  EXPECT_EQ(c.judged(), 4);
  EXPECT_NE(counts_line(c).find("1 FLAKY, 1 XFAIL, 1 XPASS"), std::string::npos);
  EXPECT_EQ(counts_line(count_results({result(Status::PASS)})).find("XFAIL"), std::string::npos);
}

TEST(Expectation, MarkdownSummarisesNewStatuses) {
  CaseResult crash = result(Status::CRASH);
  crash.message = "an illegal memory access was encountered";
  CaseResult flaky = result(Status::FLAKY);
  flaky.repeat_diffs = {{"out", 2, 17}};
  CaseResult guard = result(Status::FAIL);
  guard.guards = {{"out", "after", 4, 0, 3}};
  const std::string md = results_markdown(RunInfo{}, {apply_expectation(crash, ExpectedVerdict{"CRASH", "", "null store"}), flaky, guard,
                                                      apply_expectation(result(Status::PASS), ExpectedVerdict{"FAIL", "", "bug 7"})});
  EXPECT_NE(md.find("| XFAIL | — | known CRASH (expected: null store); an illegal memory access"), std::string::npos) << md;
  EXPECT_NE(md.find("| FLAKY | — | out: 17 element(s) differ between launch 1 and 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("out: 4 byte(s) written after the buffer"), std::string::npos) << md;
  EXPECT_NE(md.find("| XPASS | — | now PASS (expected: bug 7)"), std::string::npos) << md;
  EXPECT_NE(md.find("1 FLAKY, 1 XFAIL, 1 XPASS"), std::string::npos) << md;
}

// --- the manifest field ---

json kernel_with(const json& extra) {
  json k = json::parse(R"J({
    "name": "k", "source": "k.cu", "entry": "copy", "reference": "copy",
    "params": {"n": 100},
    "cases": [{"name": "small"}],
    "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}],
    "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}
  })J");
  k.update(extra);
  return k;
}

struct ManifestExpect : ::testing::Test {
  test::TempDir dir;
  void SetUp() override { dir.write("k.cu", "#include \"hkcheck.h\"\n"); }
  ManifestLoad load(const json& kernel) {
    return load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump()));
  }
  std::string error_of(const json& kernel) {
    const ManifestLoad m = load(kernel);
    return m.errors.size() == 1 ? m.errors[0] : "(" + std::to_string(m.errors.size()) + " errors)";
  }
};

TEST_F(ManifestExpect, KernelAndCaseFieldsLoad) {
  const ManifestLoad m = load(kernel_with({{"expect", {{"status", "FAIL"}, {"why", "bug"}}},
                                           {"repeat", 2},
                                           {"cases", {{{"name", "a"}, {"repeat", 5},
                                                       {"expect", {{{"status", "HW_LIMIT"}, {"arch", "gfx942"}, {"why", "LDS"}}}}},
                                                      {{"name", "b"}}}}}));
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  const KernelSpec& k = m.kernels.at(0);
  ASSERT_EQ(k.expect.size(), 1u);
  EXPECT_EQ(k.expect[0].why, "bug");
  EXPECT_EQ(k.cases[0].expect.at(0).arch, "gfx942");
  EXPECT_EQ(manifest_repeat(k, k.cases[0]), 5);
  EXPECT_EQ(manifest_repeat(k, k.cases[1]), 2);
}

TEST_F(ManifestExpect, BadFieldsNameTheirPath) {
  EXPECT_NE(error_of(kernel_with({{"expect", {{"status", "PASS"}, {"why", "x"}}}})).find("/kernels/0/expect/status: cannot expect 'PASS'"), std::string::npos);
  EXPECT_NE(error_of(kernel_with({{"expect", {{"status", "FAIL"}}}})).find("/kernels/0/expect/why: required field is missing"), std::string::npos);
  EXPECT_NE(error_of(kernel_with({{"expect", {{"status", "FAIL"}, {"why", "x"}, {"arhc", "sm_90"}}}})).find("/kernels/0/expect/arhc: unknown field"), std::string::npos);
  EXPECT_NE(error_of(kernel_with({{"expect", json::array({{{"status", "FAIL"}, {"why", "x"}}, {{"status", "CRASH"}, {"why", "y"}}})}}))
                .find("/kernels/0/expect/1/arch: more than one expectation for every device"), std::string::npos);
  EXPECT_NE(error_of(kernel_with({{"repeat", 0}})).find("/kernels/0/repeat: expected an integer from 1"), std::string::npos);
  EXPECT_NE(error_of(kernel_with({{"cases", {{{"name", "a"}, {"expect", "FAIL"}}}}})).find("/kernels/0/cases/0/expect: expected an object"), std::string::npos);
}

// --- the parent applies the expectation, so a crash the worker never reports is covered ---

TEST(RunnerExpectation, WorkerCrashIsXfailWhenExpected) {
  Runner runner(RunOptions{FAKE_WORKER_PATH, "fake", 0, 5, 5, 0, ""});
  KernelSpec k;
  k.name = "segv";
  k.manifest = "fake.json";
  k.expect = {{"CRASH", "", "dereferences null"}};
  const CaseResult r = runner.run(k, CaseSpec{"c", {}, {}});
  EXPECT_EQ(r.status, Status::XFAIL) << r.message;
  EXPECT_EQ(*r.actual_status, Status::CRASH);
  EXPECT_NE(r.message.find("SIGSEGV"), std::string::npos) << r.message;
}

TEST(RunnerExpectation, ExpectationForAnotherArchDoesNotApply) {
  Runner runner(RunOptions{FAKE_WORKER_PATH, "fake", 0, 5, 5, 0, ""});
  std::string why;
  ASSERT_TRUE(runner.probe(&why)) << why;  // the fake device's arch is fake_1
  KernelSpec k;
  k.name = "segv";
  k.manifest = "fake.json";
  k.expect = {{"CRASH", "sm_90", "only on Hopper"}};
  EXPECT_EQ(runner.run(k, CaseSpec{"c", {}, {}}).status, Status::CRASH);
  k.expect = {{"CRASH", "fake_1", "on the fake device"}};
  EXPECT_EQ(runner.run(k, CaseSpec{"c", {}, {}}).status, Status::XFAIL);
}

}  // namespace
}  // namespace hk
