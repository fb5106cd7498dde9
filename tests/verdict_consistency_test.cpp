// The parent re-checks every record a worker sends (output_check.h, verdict_contradiction): a
// verdict that its own figures or the case's plan contradict is a harness error, never a PASS.
#include <gtest/gtest.h>

#include "model/case_plan.h"
#include "check/output_check.h"
#include "contracts/result.h"

namespace hk {
namespace {

// x (in) and out (out), 1000 elements each, exact tolerance.
CasePlan plan() {
  CasePlan p;
  p.tensors.push_back(TensorPlan{"x", DType::f32, {1000}, 1000, Role::in, {}, {}, {}, false});
  p.tensors.push_back(TensorPlan{"out", DType::f32, {1000}, 1000, Role::out, {}, {}, {}, false});
  return p;
}

// A genuine PASS of plan(): out all right, one launch.
CaseResult passing() {
  CaseResult r;
  r.status = Status::PASS;
  r.launches = 1;
  OutputMetrics m;
  m.name = "out";
  m.numel = 1000;
  m.pass = true;
  r.outputs.push_back(m);
  return r;
}

TEST(VerdictConsistency, AGenuinePassAndAGenuineFailAgreeWithTheirRecords) {
  EXPECT_EQ(verdict_contradiction(passing(), plan()), "");
  CaseResult fail = passing();
  fail.status = Status::FAIL;
  fail.outputs[0].mismatches = fail.outputs[0].unwritten = 1000;
  fail.outputs[0].pass = false;
  EXPECT_EQ(verdict_contradiction(fail, plan()), "");
}

TEST(VerdictConsistency, APassWhoseOutputFailsIsContradicted) {
  CaseResult r = passing();
  r.outputs[0].mismatches = r.outputs[0].unwritten = 1000;
  r.outputs[0].pass = false;
  EXPECT_EQ(verdict_contradiction(r, plan()), "PASS, but output 'out' fails: 1000 of 1000 elements outside tolerance, 1000 never written, 0 NaN/Inf");
}

TEST(VerdictConsistency, AnOutputMarkedPassingAgainstItsFiguresIsContradicted) {
  CaseResult r = passing();
  r.outputs[0].mismatches = 3;
  r.outputs[0].nonfinite = 3;
  EXPECT_NE(verdict_contradiction(r, plan()).find("output 'out' is marked passing against its own figures (3 of 1000"), std::string::npos)
      << verdict_contradiction(r, plan());
}

TEST(VerdictConsistency, TheToleranceIsThePlansNotTheRecords) {
  CasePlan p = plan();
  p.tensors[1].tolerance.max_mismatch_fraction = 0.01;
  CaseResult r = passing();
  r.outputs[0].mismatches = 10;  // 1% of 1000: within the plan's fraction
  EXPECT_EQ(verdict_contradiction(r, p), "");
  r.outputs[0].mismatches = 11;
  EXPECT_NE(verdict_contradiction(r, p), "");
  r.outputs[0].mismatches = 10;
  r.outputs[0].tolerance.max_mismatch_fraction = 1;  // what the record claims does not count
  EXPECT_EQ(verdict_contradiction(r, p), "");
  r.outputs[0].unwritten = 1;  // with a fraction, no element may be unwritten
  EXPECT_NE(verdict_contradiction(r, p), "");
}

TEST(VerdictConsistency, APassWithAGuardBreachOrNoLaunchIsContradicted) {
  CaseResult r = passing();
  r.guards.push_back(GuardViolation{"out", "after", 4, 0, 3});
  EXPECT_EQ(verdict_contradiction(r, plan()), "PASS, but the kernel wrote outside tensor 'out' (4 guard bytes after it)");
  r = passing();
  r.launches = 0;
  EXPECT_EQ(verdict_contradiction(r, plan()), "PASS, but no launch is recorded");
}

TEST(VerdictConsistency, OutputsMustBeThePlans) {
  CaseResult r = passing();
  r.outputs.clear();
  EXPECT_EQ(verdict_contradiction(r, plan()), "0 output(s) recorded; the case has 1");
  r = passing();
  r.outputs[0].name = "x";
  EXPECT_NE(verdict_contradiction(r, plan()).find("output 'x' of 1000 elements is recorded where the case has 'out'"), std::string::npos);
  r = passing();
  r.outputs[0].numel = 10;
  EXPECT_NE(verdict_contradiction(r, plan()), "");
}

TEST(VerdictConsistency, RepeatedLaunchesMustAgreeWithTheVerdict) {
  CasePlan p = plan();
  p.tensors[1].deterministic = true;
  CaseResult r = passing();
  r.repeat_diffs.push_back(RepeatDiff{"out", 2, 5});
  EXPECT_EQ(verdict_contradiction(r, p), "PASS, but 'out' is declared deterministic and launch 2 differs from the first");
  EXPECT_EQ(verdict_contradiction(r, plan()), "") << "an order free to vary is noted, not failed";
  r = passing();
  r.status = Status::FLAKY;
  EXPECT_EQ(verdict_contradiction(r, plan()), "FLAKY, but no launch differed from the first");
}

TEST(VerdictConsistency, VerdictsWithoutFiguresAreNotJudgedByThem) {
  for (Status s : {Status::CRASH, Status::TIMEOUT, Status::ERROR, Status::SKIP, Status::COMPILE_ERROR}) {
    CaseResult r;
    r.status = s;
    EXPECT_EQ(verdict_contradiction(r, plan()), "") << status_name(s);
  }
}

}  // namespace
}  // namespace hk
