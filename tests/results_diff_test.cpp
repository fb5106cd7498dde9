#include "results_diff.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

using nlohmann::json;

json run_of(std::vector<json> cases) { return {{"schema_version", 1}, {"cases", cases}}; }
json c(const std::string& k, const std::string& name, const std::string& status, const std::string& reason = "") {
  return {{"kernel", k}, {"case", name}, {"status", status}, {"reason", reason}};
}

TEST(ResultsDiff, SameVerdictsDoNotDiffer) {
  const json a = run_of({c("k", "1", "PASS"), c("k", "2", "CRASH")});
  const ResultsDiff d = diff_results(a, a);
  EXPECT_EQ(d.compared, 2);
  EXPECT_TRUE(d.changed.empty());
}

TEST(ResultsDiff, AChangedVerdictOrSkipReasonIsReported) {
  const json a = run_of({c("k", "1", "PASS"), c("k", "2", "SKIP", "HW_LIMIT"), c("k", "3", "PASS")});
  const json b = run_of({c("k", "1", "FAIL"), c("k", "2", "PASS"), c("k", "3", "PASS")});
  const ResultsDiff d = diff_results(a, b);
  ASSERT_EQ(d.changed.size(), 2u);
  EXPECT_EQ(d.changed[0].before, "PASS");
  EXPECT_EQ(d.changed[0].after, "FAIL");
  EXPECT_EQ(d.changed[1].before, "SKIP (HW_LIMIT)");
}

TEST(ResultsDiff, CasesNotRunInBothAreListedNotCompared) {
  const json a = run_of({c("k", "1", "PASS"), c("k", "2", "PASS"), c("k", "only_a", "PASS")});
  const json b = run_of({c("k", "1", "SKIP", "TIER"), c("k", "2", "PASS"), c("k", "only_b", "FAIL")});
  const ResultsDiff d = diff_results(a, b);
  EXPECT_EQ(d.compared, 1);
  EXPECT_TRUE(d.changed.empty());
  EXPECT_EQ(d.missing.size(), 3u);
}

TEST(ResultsDiff, ExpectedFailuresAreComparedByTheVerdictUnderneath) {
  json crash = c("k", "1", "XFAIL"), timeout = c("k", "1", "XFAIL");
  crash["actual_status"] = "CRASH";
  timeout["actual_status"] = "TIMEOUT";
  const ResultsDiff d = diff_results(run_of({crash}), run_of({timeout}));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].before, "XFAIL [CRASH]");
  EXPECT_TRUE(diff_results(run_of({crash}), run_of({crash})).changed.empty());
}

TEST(ResultsDiff, NotAResultsDocumentIsAnError) { EXPECT_THROW(diff_results(json::object(), run_of({})), std::runtime_error); }

}  // namespace
}  // namespace hk
