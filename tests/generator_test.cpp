#include "generator.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <set>

namespace hk {
namespace {

GeneratorPlan gen(const std::string& kind, std::map<std::string, double> fields = {}) { return {kind, fields}; }

TEST(Generator, SameSeedSameDataOtherSeedOtherData) {
  const uint64_t s = tensor_seed(7, "rmsnorm", "M=7", "x");
  EXPECT_EQ(generate(gen("normal"), 1000, s), generate(gen("normal"), 1000, s));
  EXPECT_NE(generate(gen("normal"), 1000, s), generate(gen("normal"), 1000, tensor_seed(8, "rmsnorm", "M=7", "x")));
  EXPECT_NE(s, tensor_seed(7, "rmsnorm", "M=7", "w"));
  EXPECT_NE(tensor_seed(7, "ab", "c", "x"), tensor_seed(7, "a", "bc", "x"));
}

// The stream is defined by hkcheck, not the platform: pin a few values.
TEST(Generator, StreamIsPinned) {
  const auto v = generate(gen("uniform"), 3, 42);
  const auto again = generate(gen("uniform"), 3, 42);
  EXPECT_EQ(v, again);
  for (double x : v) EXPECT_TRUE(x >= 0 && x < 1);
}

TEST(Generator, NormalHasRoughlyTheAskedMoments) {
  const auto v = generate(gen("normal", {{"mean", 3}, {"std", 2}}), 100000, 1);
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= v.size();
  EXPECT_NEAR(mean, 3, 0.05);
  EXPECT_NEAR(std::sqrt(var), 2, 0.05);
}

TEST(Generator, IntRangeIncludesBothEnds) {
  const auto v = generate(gen("int", {{"low", -2}, {"high", 2}}), 10000, 3);
  std::set<double> seen(v.begin(), v.end());
  EXPECT_EQ(seen, (std::set<double>{-2, -1, 0, 1, 2}));
}

TEST(Generator, ArangeConstantAndPermutation) {
  EXPECT_EQ(generate(gen("arange", {{"start", 1}, {"step", 2}}), 4, 0), (std::vector<double>{1, 3, 5, 7}));
  EXPECT_EQ(generate(gen("arange", {{"mod", 3}}), 5, 0), (std::vector<double>{0, 1, 2, 0, 1}));
  EXPECT_EQ(generate(gen("constant", {{"value", 0.5}}), 3, 0), (std::vector<double>{0.5, 0.5, 0.5}));
  auto p = generate(gen("permutation", {{"start", 10}}), 100, 9);
  EXPECT_NE(p, generate(gen("arange", {{"start", 10}}), 100, 0));  // shuffled
  std::sort(p.begin(), p.end());
  EXPECT_EQ(p, generate(gen("arange", {{"start", 10}}), 100, 0));  // and complete
}

}  // namespace
}  // namespace hk
