// The reference cache (reference_cache.h): what it returns is exactly what was stored, a damaged
// entry is never trusted, the folder stays within its bound with the least recently used out,
// and every part of the key counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

#include "compile/block_hash.h"
#include "util/parallel_for.h"
#include "refs/reference_cache.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

ReferenceOutputs sample(double base, size_t n = 100) {
  std::vector<double> a(n), b(3);
  for (size_t i = 0; i < n; ++i) a[i] = base + std::sin(static_cast<double>(i)) * 1e-7;
  b = {-0.0, std::numeric_limits<double>::denorm_min(), std::nan("")};
  return {{"out", "f32", {static_cast<int64_t>(n)}, a}, {"lse", "f32", {3, 1}, b}};
}

OutputCounts counts_of(const ReferenceOutputs& o) {
  OutputCounts c;
  for (const ref::Tensor& t : o) c.emplace_back(t.name, static_cast<int64_t>(t.data.size()));
  return c;
}

bool same_bytes(const ReferenceOutputs& a, const ReferenceOutputs& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].data.size() != b[i].data.size() ||
        std::memcmp(a[i].data.data(), b[i].data.data(), a[i].data.size() * sizeof(double)) != 0)
      return false;
  return true;
}

TEST(ReferenceOutputsCache, ReadsBackTheSameBytesEveryTime) {
  test::TempDir dir;
  ReferenceCache cache(dir.path() + "/refs", 1 << 20);
  const ReferenceOutputs stored = sample(1.5);
  ASSERT_TRUE(cache.write("00000000000000aa", stored));
  for (int i = 0; i < 2; ++i) {
    std::string note;
    const auto got = cache.read("00000000000000aa", counts_of(stored), &note);
    ASSERT_TRUE(got.has_value());
    EXPECT_TRUE(same_bytes(*got, stored)) << "read " << i + 1;
    EXPECT_EQ(note, "");
  }
  std::string note;
  EXPECT_FALSE(cache.read("00000000000000bb", counts_of(stored), &note).has_value()) << "another key";
  EXPECT_EQ(note, "") << "a missing entry is a miss, not damage";
  // A tensor the reference added beyond the case's outputs (a check's target) comes back too.
  const auto with_added = cache.read("00000000000000aa", {counts_of(stored)[0]}, &note);
  ASSERT_TRUE(with_added.has_value());
  EXPECT_TRUE(same_bytes(*with_added, stored));
}

TEST(ReferenceOutputsCache, ADamagedEntryIsNoticedAndRemoved) {
  test::TempDir dir;
  ReferenceCache cache(dir.path(), 1 << 20);
  const ReferenceOutputs stored = sample(2);
  const std::string file = dir.path() + "/00000000000000aa.ref";
  const auto damage = [&](auto&& how) {
    ASSERT_TRUE(cache.write("00000000000000aa", stored));
    std::string bytes = test::slurp(file);
    how(bytes);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    std::string note;
    EXPECT_FALSE(cache.read("00000000000000aa", counts_of(stored), &note).has_value());
    EXPECT_NE(note.find("damaged"), std::string::npos) << note;
    EXPECT_FALSE(fs::exists(file)) << "a damaged entry is removed, to be written again";
  };
  damage([](std::string& b) { b[b.size() - 5] ^= 0x10; });              // a flipped bit in the outputs
  damage([](std::string& b) { b.resize(b.size() - 8); });               // truncated
  damage([](std::string& b) { b.resize(b.find('\n') / 2); });           // torn in its header
  damage([](std::string& b) { b.replace(b.find("aa\""), 2, "cc"); });   // another key's entry under this name
  // The right bytes, but not the outputs this case has: never taken for them.
  ASSERT_TRUE(cache.write("00000000000000aa", stored));
  OutputCounts other = counts_of(stored);
  other[0].second += 1;
  std::string note;
  EXPECT_FALSE(cache.read("00000000000000aa", other, &note).has_value());
  EXPECT_NE(note, "");
}

TEST(ReferenceOutputsCache, EvictsTheLeastRecentlyUsedToKeepItsBound) {
  test::TempDir dir;
  const ReferenceOutputs one = sample(3);
  // The size of one entry, from a cache of its own.
  ReferenceCache probe(dir.path() + "/probe", 1 << 20);
  ASSERT_TRUE(probe.write("0000000000000001", one));
  const uint64_t entry = fs::file_size(dir.path() + "/probe/0000000000000001.ref");

  const std::string folder = dir.path() + "/refs";
  ReferenceCache cache(folder, 3 * entry + entry / 2);  // room for three
  const auto path = [&](const char* key) { return folder + "/" + key + ".ref"; };
  const auto now = fs::file_time_type::clock::now();
  int age = 30;
  for (const char* key : {"000000000000000a", "000000000000000b", "000000000000000c"}) {
    ASSERT_TRUE(cache.write(key, one));
    fs::last_write_time(path(key), now - std::chrono::seconds(age -= 10));  // a oldest, c newest
  }
  std::string note;
  ASSERT_TRUE(cache.read("000000000000000a", counts_of(one), &note).has_value());  // a is used again: b is now the oldest
  ASSERT_TRUE(cache.write("000000000000000d", one));
  EXPECT_TRUE(fs::exists(path("000000000000000a")));
  EXPECT_FALSE(fs::exists(path("000000000000000b"))) << "the least recently used goes first";
  EXPECT_TRUE(fs::exists(path("000000000000000c")));
  EXPECT_TRUE(fs::exists(path("000000000000000d")));
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".ref") total += fs::file_size(e.path());
  EXPECT_LE(total, 3 * entry + entry / 2);
  ReferenceCache tiny(dir.path() + "/tiny", entry / 2);
  EXPECT_FALSE(tiny.write("0000000000000001", one)) << "an entry larger than the bound is not kept";
}

// Workers write into one folder, each unaware of the others' entries: the bound holds all the
// same (within a sixteenth per writer), because each measures the folder again as it writes.
TEST(ReferenceOutputsCache, TheBoundHoldsWithSeveralWriters) {
  test::TempDir dir;
  const ReferenceOutputs one = sample(5, 2000);
  ReferenceCache probe(dir.path() + "/probe", 1 << 30);
  ASSERT_TRUE(probe.write("0000000000000001", one));
  const uint64_t entry = fs::file_size(dir.path() + "/probe/0000000000000001.ref");
  const std::string folder = dir.path() + "/refs";
  const uint64_t bound = 16 * entry;
  ReferenceCache a(folder, bound), b(folder, bound);
  for (int i = 0; i < 24; ++i) ASSERT_TRUE((i % 2 ? b : a).write(fmt::format("{:016x}", 100 + i), one));
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".ref") total += fs::file_size(e.path());
  EXPECT_LE(total, bound + 2 * (bound / 16 + entry)) << total / entry << " entries kept for a bound of 16";
}

CaseJob base_job() {
  CaseJob j;
  j.kernel = "k";
  j.case_name = "c";
  j.stream_name = "c";
  j.reference = "ref";
  j.seed = 7;
  j.plan.params = {{"N", 4.0}, {"mode", std::string("neox")}};
  TensorPlan x;
  x.name = "x", x.dtype = DType::f16, x.shape = {2, 2}, x.numel = 4, x.role = Role::in, x.init = {"normal", {{"std", 1.0}}};
  TensorPlan y = x;
  y.name = "y", y.role = Role::out;
  j.plan.tensors = {x, y};
  return j;
}

TEST(ReferenceOutputsCache, EveryPartOfTheKeyCounts) {
  const std::string lib = "ref-1.so:10:00000000000000ff";
  std::set<std::string> keys = {reference_cache_key(base_job(), lib)};
  EXPECT_EQ(reference_cache_key(base_job(), lib), *keys.begin()) << "the same job, the same key";
  // What the reference reads does not include the tolerances, launch or the run's repro folder.
  CaseJob same = base_job();
  same.plan.tensors[1].tolerance.atol = 1;
  same.plan.grid = {9, 1, 1};
  same.repro_dir = "/elsewhere";
  EXPECT_EQ(reference_cache_key(same, lib), *keys.begin());

  std::vector<std::pair<std::string, std::string>> changed;
  const auto add = [&](const std::string& what, const CaseJob& j, const std::string& l = "ref-1.so:10:00000000000000ff", int gen = kInputGenerationVersion) {
    changed.emplace_back(what, reference_cache_key(j, l, gen));
  };
  add("library", base_job(), "ref-1.so:10:00000000000000fe");
  add("generation", base_job(), lib, kInputGenerationVersion + 1);
  std::vector<std::pair<std::string, void (*)(CaseJob&)>> edits = {
      {"reference", [](CaseJob& j) { j.reference = "other"; }},
      {"kernel", [](CaseJob& j) { j.kernel = "k2"; }},
      {"stream", [](CaseJob& j) { j.stream_name = "c2"; }},
      {"seed", [](CaseJob& j) { j.seed = 8; }},
      {"numeric param", [](CaseJob& j) { j.plan.params["N"] = 4.0000000001; }},
      {"string param", [](CaseJob& j) { j.plan.params["mode"] = std::string("gptj"); }},
      {"param added", [](CaseJob& j) { j.plan.params["M"] = 1.0; }},
      {"dtype", [](CaseJob& j) { j.plan.tensors[0].dtype = DType::bf16; }},
      {"shape", [](CaseJob& j) { j.plan.tensors[0].shape = {4, 1}; }},
      {"role", [](CaseJob& j) { j.plan.tensors[1].role = Role::inout; }},
      {"tensor name", [](CaseJob& j) { j.plan.tensors[0].name = "z"; }},
      {"generator", [](CaseJob& j) { j.plan.tensors[0].init.kind = "uniform"; }},
      {"generator field", [](CaseJob& j) { j.plan.tensors[0].init.fields["std"] = 2; }},
      {"tensor order", [](CaseJob& j) { std::swap(j.plan.tensors[0], j.plan.tensors[1]); }},
      {"derived reference", [](CaseJob& j) { j.plan.tensors[0].init = {kDerivedKind, {}, "fwd_a", "out"}; }},
      {"derived output", [](CaseJob& j) { j.plan.tensors[0].init = {kDerivedKind, {}, "fwd_b", "lse"}; }},
      {"derived both", [](CaseJob& j) { j.plan.tensors[0].init = {kDerivedKind, {}, "fwd_b", "out"}; }},
  };
  for (const auto& [what, edit] : edits) {
    CaseJob j = base_job();
    edit(j);
    add(what, j);
  }
  for (const auto& [what, key] : changed) {
    EXPECT_EQ(key.size(), 16u);
    EXPECT_TRUE(keys.insert(key).second) << what << " does not change the key";
  }
}

TEST(ReferenceOutputsCache, TheHeaderRoundTrips) {
  const ReferenceCacheHeader h{"00000000000000aa", {"out", "lse"}, {4, 2}, {"f32", "bf16"}, {{4}, {2, 1}}, {8, 4}, 40, {0x0123456789abcdefull, 7}};
  const ReferenceCacheHeader back = nlohmann::json(h).get<ReferenceCacheHeader>();
  EXPECT_EQ(back.key, h.key);
  EXPECT_EQ(back.tensors, h.tensors);
  EXPECT_EQ(back.counts, h.counts);
  EXPECT_EQ(back.dtypes, h.dtypes);
  EXPECT_EQ(back.shapes, h.shapes);
  EXPECT_EQ(back.widths, h.widths);
  EXPECT_EQ(back.payload_bytes, h.payload_bytes);
  EXPECT_EQ(back.hashes, h.hashes);
}

// Outputs whose every value is a float exactly are stored as floats, over several hash blocks:
// half the bytes, the same doubles back bit for bit (-0, infinities, a quiet NaN), and a flipped
// bit still found. One value that is not a float keeps its whole tensor in doubles.
TEST(ReferenceOutputsCache, FloatExactOutputsTakeHalfTheBytes) {
  test::TempDir dir;
  ReferenceCache cache(dir.path(), uint64_t{1} << 30);
  set_parallel_threads(3);
  const size_t n = 2 * kHashBlockBytes / sizeof(float) + 5;
  std::vector<double> copy(n);
  for (size_t i = 0; i < n; ++i) copy[i] = static_cast<double>(static_cast<float>(std::sin(static_cast<double>(i)) * 1e3));
  copy[1] = -0.0, copy[2] = -std::numeric_limits<double>::infinity(), copy[3] = std::numeric_limits<double>::quiet_NaN();
  copy[4] = static_cast<double>(std::numeric_limits<float>::denorm_min());
  std::vector<double> almost = copy;
  almost[n - 1] = 1.0 + 1e-12;  // not a float
  const ReferenceOutputs stored = {{"out", "f32", {static_cast<int64_t>(n)}, copy}};
  const ReferenceOutputs wide = {{"out", "f32", {static_cast<int64_t>(n)}, almost}};
  ASSERT_TRUE(cache.write("00000000000000aa", stored));
  ASSERT_TRUE(cache.write("00000000000000bb", wide));
  const std::string file = dir.path() + "/00000000000000aa.ref";
  EXPECT_LT(fs::file_size(file), n * sizeof(float) + 4096);
  EXPECT_GT(fs::file_size(dir.path() + "/00000000000000bb.ref"), n * sizeof(double));
  for (const auto& [key, outputs] : {std::pair{"00000000000000aa", stored}, std::pair{"00000000000000bb", wide}}) {
    std::string note;
    const auto got = cache.read(key, counts_of(outputs), &note);
    ASSERT_TRUE(got.has_value()) << note;
    EXPECT_TRUE(same_bytes(*got, outputs)) << key;
  }
  std::string bytes = test::slurp(file);
  bytes[bytes.size() - kHashBlockBytes - 100] ^= 0x40;  // inside the second block
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  std::string note;
  EXPECT_FALSE(cache.read("00000000000000aa", counts_of(stored), &note).has_value());
  EXPECT_NE(note.find("damaged"), std::string::npos) << note;
  set_parallel_threads(1);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

TEST(BlockHash, SameValueWhateverTheThreadCountAndEveryByteCounts) {
  std::vector<uint8_t> bytes(3 * kHashBlockBytes + 12345);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + (i >> 13));
  set_parallel_threads(1);
  const uint64_t one = block_hash(bytes.data(), bytes.size());
  set_parallel_threads(4);
  EXPECT_EQ(block_hash(bytes.data(), bytes.size()), one);
  bytes[2 * kHashBlockBytes + 7] ^= 1;  // a bit in a later block
  EXPECT_NE(block_hash(bytes.data(), bytes.size()), one);
  bytes[2 * kHashBlockBytes + 7] ^= 1;
  EXPECT_NE(block_hash(bytes.data(), bytes.size() - 1), one) << "the length counts";
  set_parallel_threads(1);
}

// Outputs of several hash blocks are read straight into the case's own vectors (the guard behind
// them stays armed); a damaged block is found, and the outputs go back to their armed state.
// What a reference left is stored unless it changed an input that a check reads after it: such a
// check would see the changed values when the reference ran and the first ones when its outputs
// are read back. An input nothing else reads may change; it is not even hashed.
TEST(ReferenceOutputsCache, OnlyAChangedInputThatAChecksReadsKeepsTheOutputsOut) {
  test::TempDir dir;
  ReferenceCache cache(dir.path(), uint64_t{1} << 30);
  const CaseJob job = base_job();
  auto stored_after = [&](const std::string& key, const std::vector<bool>& checked, bool change_x) {
    ref::Context ctx;
    ctx.tensors["x"] = ref::Tensor{"x", "f16", {2, 2}, {1, 2, 3, 4}};
    ctx.tensors["y"] = ref::Tensor{"y", "f16", {2, 2}, {5, 6, 7, 8}};
    const std::vector<uint64_t> before = input_digest(job.plan, ctx, checked);
    if (change_x) ctx.tensors["x"].data[3] = -4;  // the reference scribbles on its input
    store_reference_outputs(cache, key, job.plan, ctx, checked, before);
    std::string note;
    const auto back = cache.read(key, OutputCounts{{"y", 4}}, &note);
    return back && back->at(0).data == std::vector<double>{5, 6, 7, 8};
  };
  EXPECT_TRUE(stored_after("00000000000000a1", {false, false}, false));
  EXPECT_TRUE(stored_after("00000000000000a2", {true, false}, false));
  EXPECT_FALSE(stored_after("00000000000000a3", {true, false}, true)) << "a check reads x, and the reference changed it";
  EXPECT_TRUE(stored_after("00000000000000a4", {false, false}, true)) << "nothing reads x after the reference";
  ref::Context ctx;
  ctx.tensors["x"] = ref::Tensor{"x", "f16", {2, 2}, {1, 2, 3, 4}};
  EXPECT_TRUE(input_digest(job.plan, ctx, {false, false}).empty()) << "an input no check reads is not hashed";
  EXPECT_EQ(input_digest(job.plan, ctx, {true, false}).size(), 1u);
}

TEST(ReferenceOutputsCache, BigOutputsAreReadIntoTheCasesVectors) {
  test::TempDir dir;
  ReferenceCache cache(dir.path(), uint64_t{1} << 30);
  set_parallel_threads(3);
  CaseJob job = base_job();
  const int64_t n = static_cast<int64_t>(2 * kHashBlockBytes / sizeof(double)) + 3;
  job.plan.tensors[1].shape = {n}, job.plan.tensors[1].numel = n;
  ref::Tensor y{"y", "f16", {n}, {}};
  y.data.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) y.data[static_cast<size_t>(i)] = std::sin(static_cast<double>(i));
  ref::Tensor extra{"lse", "f32", {2}, {1.5, -2.5}};
  ASSERT_TRUE(cache.write("00000000000000aa", std::vector<const ref::Tensor*>{&y, &extra}));

  ref::Context ctx;
  ctx.tensors["y"] = ref::Tensor{"y", "f16", {n}, std::vector<double>(static_cast<size_t>(n), std::nan(""))};
  const double* armed = ctx.tensors["y"].data.data();
  std::vector<std::string> notes;
  ASSERT_TRUE(fill_reference_outputs(cache, "00000000000000aa", job.plan, ctx, &notes));
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(ctx.tensors["y"].data.data(), armed);
  EXPECT_EQ(std::memcmp(ctx.tensors["y"].data.data(), y.data.data(), y.data.size() * sizeof(double)), 0);
  EXPECT_EQ(ctx.tensors.at("lse").data, extra.data);

  const std::string file = dir.path() + "/00000000000000aa.ref";
  std::string bytes = test::slurp(file);
  bytes[bytes.size() - kHashBlockBytes - 100] ^= 0x40;  // inside the second block of y
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  ctx.tensors.erase("lse");
  ASSERT_FALSE(fill_reference_outputs(cache, "00000000000000aa", job.plan, ctx, &notes));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("damaged"), std::string::npos) << notes[0];
  EXPECT_TRUE(std::all_of(ctx.tensors["y"].data.begin(), ctx.tensors["y"].data.end(), [](double v) { return std::isnan(v); }))
      << "outputs read from a damaged entry are put back as the reference would find them";
  EXPECT_EQ(ctx.tensors.count("lse"), 0u);
  set_parallel_threads(1);
}

}  // namespace
}  // namespace hk
