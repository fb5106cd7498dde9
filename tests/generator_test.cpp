#include "refs/generator.h"
#include "model/dtype.h"
#include "util/parallel_for.h"
#include "refs/portable_normal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

// A digest of the values of every random kind, for fixed seeds and tensor names: normal values
// both in full (the transform is hkcheck's own arithmetic, the same bits everywhere) and as the
// kernels see them, rounded to 16- and 8-bit dtypes.
uint64_t values_digest() {
  uint64_t h = 0xCBF29CE484222325ull;
  auto mix = [&](double x) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    for (int i = 0; i < 8; ++i) h = (h ^ ((bits >> (8 * i)) & 0xFF)) * 0x100000001B3ull;
  };
  const uint64_t seed = tensor_seed(7, "kernel", "case", "x");
  for (const char* kind : {"uniform", "permutation"})
    for (double x : generate(gen(kind), 4099, seed)) mix(x);
  for (double x : generate(gen("int", {{"low", -5}, {"high", 9}}), 4099, seed + 1)) mix(x);
  for (double x : generate(gen("normal", {{"mean", 0.25}, {"std", 3}}), 1001, seed + 3)) mix(x);
  for (const char* dtype : {"bf16", "f16", "fp8e4m3"})
    for (double x : generate(gen("normal", {{"std", 3}}), 1000, seed + 2)) mix(round_to_dtype(*parse_dtype(dtype), x));
  return h;
}

// The values of a seed are those of kInputGenerationVersion: a change to them without a new
// version would let caches keyed by the version serve results made from other inputs.
TEST(Generator, ValuesAreThoseOfTheInputGenerationVersion) {
  const std::map<int, uint64_t> digest_of_version = {{2, 0xdfc07aa1b6c13849ull}};
  ASSERT_TRUE(digest_of_version.count(kInputGenerationVersion)) << "pin the digest of version " << kInputGenerationVersion;
  EXPECT_EQ(values_digest(), digest_of_version.at(kInputGenerationVersion))
      << std::hex << "the generated values changed (digest 0x" << values_digest()
      << "): bump kInputGenerationVersion in src/refs/generator.h and pin the new digest here";
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

namespace hk {
namespace {

// The stream as drawn one value after another (splitmix64, Box-Muller one pair at a time), written out here
// on its own: the chunked, multi-threaded generator must give exactly these values.
std::vector<double> drawn_in_sequence(const std::string& kind, int64_t n, uint64_t seed) {
  uint64_t state = seed;
  auto uniform01 = [&] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += (kind == "normal" ? 2 : 1)) {
    if (kind == "normal") {
      const double u1 = uniform01(), u2 = uniform01();
      double a, b;
      normal_pairs(&u1, &u2, &a, &b, 1);
      v[i] = 0.5 + 2.0 * a;
      if (i + 1 < n) v[i + 1] = 0.5 + 2.0 * b;
    } else {
      v[i] = -3 + 5 * uniform01();
    }
  }
  return v;
}

TEST(Generator, ChunksOnSeveralThreadsGiveTheSequentialStream) {
  const int64_t n = 3 * kElementChunk + 12345;  // several chunks and a short odd tail
  for (int threads : {1, 4}) {
    set_parallel_threads(threads);
    const auto normal = generate(GeneratorPlan{"normal", {{"mean", 0.5}, {"std", 2.0}}}, n, 99);
    const auto uniform = generate(GeneratorPlan{"uniform", {{"low", -3}, {"high", 2}}}, n, 99);
    EXPECT_EQ(normal, drawn_in_sequence("normal", n, 99)) << threads << " threads";
    EXPECT_EQ(uniform, drawn_in_sequence("uniform", n, 99)) << threads << " threads";
  }
  set_parallel_threads(1);
}

// What a case's input holds: every value rounded to its dtype in the same pass, the same bytes
// on one thread and on several.
TEST(Generator, InputsAreTheRoundedStreamWhateverTheThreadCount) {
  const int64_t n = 3 * kElementChunk + 777;
  const std::vector<GeneratorPlan> plans = {{"normal", {{"std", 3}}}, {"uniform", {{"low", -1}, {"high", 4}}},
                                            {"int", {{"low", -7}, {"high", 300}}}, {"arange", {{"step", 0.37}, {"mod", 5}}},
                                            {"constant", {{"value", 1.0 / 3}}}, {"permutation", {}}};
  for (const GeneratorPlan& g : plans)
    for (const DType dtype : {DType::bf16, DType::fp8e4m3, DType::i8, DType::f64}) {
      std::vector<double> expected = generate(g, n, 5);
      for (double& x : expected) x = round_to_dtype(dtype, x);
      for (int threads : {1, 3}) {
        set_parallel_threads(threads);
        std::vector<double> got(static_cast<size_t>(n), -1.0);
        generate_into(g, dtype, n, 5, got.data());
        EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)), 0)
            << g.kind << " " << dtype_name(dtype) << " on " << threads << " threads";
      }
    }
  set_parallel_threads(1);
}

// What the kernel is given: generate_packed's bytes are the rounded values encoded one element
// at a time, for every kind and dtype, an odd count (a half-filled fp4 byte) and any thread count.
TEST(Generator, PackedInputsAreTheRoundedValuesInDeviceBytes) {
  const int64_t n = 2 * kElementChunk + 4097;
  const std::vector<GeneratorPlan> plans = {{"normal", {{"std", 3}}}, {"uniform", {{"low", -7}, {"high", 7}}},
                                            {"int", {{"low", -300}, {"high", 300}}}, {"arange", {{"step", 0.37}, {"mod", 5}}},
                                            {"constant", {{"value", 1.0 / 3}}}, {"permutation", {}}};
  const DType dtypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::fp8e4m3, DType::fp8e5m2, DType::fp4e2m1,
                          DType::e8m0, DType::i8, DType::u8, DType::i32, DType::i64, DType::u32};
  for (const GeneratorPlan& g : plans)
    for (const DType dtype : dtypes) {
      set_parallel_threads(1);
      std::vector<double> values(static_cast<size_t>(n));
      generate_into(g, dtype, n, 11, values.data());
      std::vector<uint8_t> expected(storage_bytes(dtype, n), 0);
      for (int64_t i = 0; i < n; ++i) encode_element(dtype, values[static_cast<size_t>(i)], expected.data(), i);
      for (int threads : {1, 3}) {
        set_parallel_threads(threads);
        EXPECT_EQ(generate_packed(g, dtype, n, 11), expected) << g.kind << " " << dtype_name(dtype) << " on " << threads << " threads";
      }
    }
  set_parallel_threads(1);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// The portable transform is Box-Muller: within 1e-14 of the C library's log, sqrt, cos and sin
// over the whole range of draws, the extremes included.
TEST(PortableNormal, AgreesWithTheLibraryFormula) {
  std::vector<double> u1 = {0.0, 0x1p-53, 0.25, 0.5, 0.75, 1.0 - 0x1p-53, 0.2928932188134524, 0.7071067811865476};
  std::vector<double> u2 = {0.0, 0x1p-53, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0 - 0x1p-53};
  for (int k = 1; k < 4000; ++k) {
    u1.push_back(std::fmod(k * 0.6180339887498949, 1.0));
    u2.push_back(std::fmod(k * 0.7548776662466927, 1.0));
  }
  double worst = 0;
  for (const double a : u1)
    for (size_t j = 0; j < u2.size(); j += 37) {
      double x, y;
      normal_pairs(&a, &u2[j], &x, &y, 1);
      const double r = std::sqrt(-2.0 * std::log(1.0 - a));
      worst = std::max({worst, std::fabs(x - r * std::cos(2 * M_PI * u2[j])), std::fabs(y - r * std::sin(2 * M_PI * u2[j]))});
    }
  EXPECT_LT(worst, 1e-14);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// The vectorized transform gives the bits of the baseline build, element by element, over the
// extremes and a long run of draws (any batch length, so the vector loops' tails are covered too).
TEST(PortableNormal, EveryBuildGivesTheSameBits) {
  std::vector<double> u1 = {0.0, 0x1p-53, 0.25, 0.5, 0.75, 1.0 - 0x1p-53, 0.2928932188134524, 0.7071067811865476};
  std::vector<double> u2 = {0.0, 0x1p-53, 0.125, 0.25, 0.375, 0.5, 0.625, 1.0 - 0x1p-53};
  uint64_t s = 3;
  for (int k = 0; k < 100003; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    u1.push_back(static_cast<double>(s >> 11) * 0x1.0p-53);
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    u2.push_back(static_cast<double>(s >> 11) * 0x1.0p-53);
  }
  const size_t n = u1.size();
  std::vector<double> a(n), b(n), a0(n), b0(n);
  for (size_t at = 0, len = 1; at < n; at += len, len = len % 37 + 1) {
    const size_t count = std::min(len, n - at);
    normal_pairs(&u1[at], &u2[at], &a[at], &b[at], count);
    normal_pairs_baseline(&u1[at], &u2[at], &a0[at], &b0[at], count);
  }
  EXPECT_EQ(std::memcmp(a.data(), a0.data(), n * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(b.data(), b0.data(), n * sizeof(double)), 0);
}

}  // namespace
}  // namespace hk
