// Choosing cases: kernel/case patterns, -k, --exclude and --last-failed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tuple>

#include "select/case_filter.h"
#include "contracts/results_document.h"
#include "test_util.h"

namespace hk {
namespace {

KernelSpec kernel() {
  KernelSpec k;
  k.name = "rmsnorm";
  for (const char* c : {"D=128,dtype=f16", "D=128,dtype=bf16", "D=4096,dtype=f16", "D=4096,dtype=f32"}) k.cases.push_back(CaseSpec{c});
  return k;
}

std::vector<std::string> names(const KernelSpec& k) {
  std::vector<std::string> v;
  for (const CaseSpec& c : k.cases) v.push_back(c.name);
  return v;
}

TEST(CaseFilter, GlobsMatchTheWholeIdOtherPatternsAPart) {
  EXPECT_TRUE(id_matches("rmsnorm/*f16", "rmsnorm/D=128,dtype=f16"));
  EXPECT_FALSE(id_matches("rmsnorm/*f16", "fused_add_rmsnorm/D=128,dtype=f16"));
  EXPECT_TRUE(id_matches("dtype=f16", "fused_add_rmsnorm/D=128,dtype=f16"));
  EXPECT_FALSE(id_matches("dtype=f32", "rmsnorm/D=128,dtype=f16"));
}

TEST(CaseFilter, PatternsKeywordsAndExcludesAllApply) {
  KernelSpec k = kernel();
  EXPECT_EQ(filter_cases(k, CaseFilter{}), 4u);
  EXPECT_EQ(filter_cases(k, CaseFilter{{"rmsnorm/*=f16"}, {"D=4096"}, {}, std::nullopt}), 1u);
  EXPECT_EQ(names(k), (std::vector<std::string>{"D=4096,dtype=f16"}));
  k = kernel();
  filter_cases(k, CaseFilter{{}, {}, {"bf16", "f32"}, std::nullopt});
  EXPECT_EQ(names(k), (std::vector<std::string>{"D=128,dtype=f16", "D=4096,dtype=f16"}));
  k = kernel();
  filter_cases(k, CaseFilter{{}, {}, {}, std::set<std::string>{"rmsnorm/D=128,dtype=bf16", "other/x"}});
  EXPECT_EQ(names(k), (std::vector<std::string>{"D=128,dtype=bf16"}));
}

TEST(CaseFilter, LastFailedReadsAResultsFolder) {
  test::TempDir dir;
  ResultsDocument results;
  for (const auto& [k, c, st] : std::vector<std::tuple<const char*, const char*, Status>>{
           {"a", "1", Status::PASS}, {"a", "2", Status::FAIL}, {"b", "1", Status::XFAIL}, {"b", "2", Status::NOT_RUN}, {"b", "3", Status::SKIP}}) {
    CaseResult r;
    r.kernel = k, r.case_name = c, r.status = st;
    results.cases.push_back(r);
  }
  dir.write("run/test_results.json", nlohmann::json(results).dump());
  EXPECT_EQ(ids_not_passed(dir.path() + "/run"), (std::set<std::string>{"a/2", "b/2"}));
  EXPECT_THROW(ids_not_passed(dir.path() + "/none"), std::runtime_error);
  nlohmann::json bad = results;
  bad["cases"][1].erase("status");
  dir.write("bad.json", bad.dump());
  try {
    ids_not_passed(dir.path() + "/bad.json");
    FAIL() << "a results file without statuses was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: /cases/1: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hk
