// --seeds: the seed lists it takes, the copies it makes, and the summary that groups them back.
#include <gtest/gtest.h>

#include "contracts/case_job.h"
#include "select/seed_sweep.h"

namespace hk {
namespace {

TEST(SeedList, RangesListsAndBoth) {
  EXPECT_EQ(parse_seed_list("0..3"), (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(parse_seed_list("7"), (std::vector<uint64_t>{7}));
  EXPECT_EQ(parse_seed_list("5,1,9"), (std::vector<uint64_t>{5, 1, 9}));
  EXPECT_EQ(parse_seed_list("0..2,10"), (std::vector<uint64_t>{0, 1, 2, 10}));
  EXPECT_EQ(parse_seed_list("18446744073709551615"), (std::vector<uint64_t>{18446744073709551615ull}));
}

TEST(SeedList, BadListsSayWhy) {
  auto why = [](const std::string& text) {
    try {
      parse_seed_list(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("").find("is not a seed"), std::string::npos);
  EXPECT_NE(why("1,,2").find("'' in '1,,2' is not a seed"), std::string::npos);
  EXPECT_NE(why("-1").find("is not a seed"), std::string::npos);
  EXPECT_NE(why("3..1").find("counts down"), std::string::npos);
  EXPECT_NE(why("0..1000").find("more than 1000 seeds"), std::string::npos);
  EXPECT_NE(why("1,2,1").find("seed 1 is given twice"), std::string::npos);
  EXPECT_NE(why("1.5").find("is not a seed"), std::string::npos);
}

TEST(SeedSweep, CopiesKeepTheInputsOfTheirSeed) {
  KernelSpec k;
  k.name = "k";
  k.cases = {CaseSpec{"a"}, CaseSpec{"b"}};
  sweep_seeds(k, {3, 4});
  ASSERT_EQ(k.cases.size(), 4u);
  EXPECT_EQ(k.cases[1].name, "a seed=4");
  EXPECT_EQ(k.cases[1].seed, 4u);
  EXPECT_EQ(k.cases[1].stream_name(), "a");
  EXPECT_EQ(k.cases[2].name, "b seed=3");
  // The job of a copy has the copy's seed and the case's own stream name: its inputs are those
  // of `--seed 3` on case "b", and its result names the copy.
  const CaseJob job = make_case_job(k, k.cases[2], 0, 1, "");
  EXPECT_EQ(job.seed, 3u);
  EXPECT_EQ(job.stream_name, "b");
  EXPECT_EQ(job.case_name, "b seed=3");
}

TEST(SeedSweep, SummaryGroupsTheCopies) {
  std::vector<CaseResult> results(4);
  const Status st[] = {Status::PASS, Status::FAIL, Status::PASS, Status::PASS};
  for (int i = 0; i < 4; ++i) {
    results[i].kernel = "k";
    results[i].swept_from = i < 2 ? "a" : "b";
    results[i].seed = static_cast<uint64_t>(i % 2);
    results[i].status = st[i];
  }
  const std::vector<SeedSummary> s = summarize_seeds(results);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].case_name, "a");
  EXPECT_EQ(s[0].seeds, 2);
  ASSERT_EQ(s[0].not_passed.size(), 1u);
  EXPECT_EQ(s[0].not_passed[0].first, 1u);
  EXPECT_TRUE(s[1].not_passed.empty());
  EXPECT_TRUE(summarize_seeds({CaseResult{}}).empty());
}

}  // namespace
}  // namespace hk
