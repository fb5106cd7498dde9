// --shard K/N: the parts of one selection are disjoint, cover it, and are balanced by cost.
#include <gtest/gtest.h>

#include "select/shard.h"

namespace hk {
namespace {

std::vector<KernelSpec> kernels() {
  std::vector<KernelSpec> ks(3);
  for (size_t k = 0; k < ks.size(); ++k) {
    ks[k].name = "k" + std::to_string(k);
    for (int c = 0; c < 7; ++c) ks[k].cases.push_back(CaseSpec{"c" + std::to_string(c)});
  }
  return ks;
}

TEST(Shard, ParsesKOfN) {
  EXPECT_EQ(parse_shard("2/4").index, 1u);
  EXPECT_EQ(parse_shard("2/4").count, 4u);
  for (const char* bad : {"0/4", "5/4", "4", "a/b", "1/0", "1/1001", "-1/2", "1/2/3"}) EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
}

TEST(Shard, PartsAreDisjointAndCoverEveryCase) {
  const std::vector<KernelSpec> ks = kernels();
  const std::vector<const KernelSpec*> sel = {&ks[0], &ks[1], &ks[2]};
  for (size_t n : {1u, 2u, 4u, 21u, 30u}) {
    std::set<std::string> all;
    size_t total = 0;
    for (size_t k = 0; k < n; ++k) {
      const std::set<std::string> part = shard_ids(sel, ShardSpec{k, n}, {});
      total += part.size();
      all.insert(part.begin(), part.end());
    }
    EXPECT_EQ(total, 21u) << n << " parts";
    EXPECT_EQ(all.size(), 21u) << n << " parts";
  }
}

TEST(Shard, RecordedDurationsBalanceTheParts) {
  const std::vector<KernelSpec> ks = kernels();
  const std::vector<const KernelSpec*> sel = {&ks[0], &ks[1], &ks[2]};
  // One case as slow as all the others together: it gets a part of its own.
  std::map<std::string, double> ms;
  for (const KernelSpec& k : ks)
    for (const CaseSpec& c : k.cases) ms[k.name + "/" + c.name] = 1;
  ms["k1/c3"] = 20;
  const std::set<std::string> a = shard_ids(sel, ShardSpec{0, 2}, ms), b = shard_ids(sel, ShardSpec{1, 2}, ms);
  EXPECT_EQ(a, (std::set<std::string>{"k1/c3"}));
  EXPECT_EQ(b.size(), 20u);
}

}  // namespace
}  // namespace hk
