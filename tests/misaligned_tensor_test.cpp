// Misaligned tensors (a tensor's "offset_bytes", docs/manifest.md): validated at load with the
// file and field named, carried by the case plan into the job and its fingerprint, kept out of
// the reference cache's key (the values do not move with the buffer), and guarded right around
// the tensor's own bytes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run/case_fingerprint.h"
#include "contracts/case_job.h"
#include "model/case_plan.h"
#include "model/plan_case.h"
#include "check/guard.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "refs/reference_cache.h"
#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;

json kernel_with(const json& x_offset, const json& cases) {
  json k = json::parse(R"J({
    "name": "k", "source": "k.cu", "entry": "copy", "reference": "copy",
    "params": {"n": 100, "dtype": "f32", "off": 0},
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}],
    "launch": {"grid": [1], "block": [64]}
  })J");
  if (!x_offset.is_null()) k["tensors"][0]["offset_bytes"] = x_offset;
  k["cases"] = cases;
  return k;
}

struct MisalignedTensor : ::testing::Test {
  test::TempDir dir;
  void SetUp() override { dir.write("k.cu", "#include \"hkcheck.h\"\n"); }
  ManifestLoad load(const json& kernel) { return load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump())); }
  std::string error_of(const json& kernel) {
    const ManifestLoad m = load(kernel);
    EXPECT_EQ(m.errors.size(), 1u);
    return m.errors.empty() ? "" : m.errors[0];
  }
};

TEST_F(MisalignedTensor, TheTensorsOffsetAndACasesOverrideReachThePlan) {
  const ManifestLoad m = load(kernel_with("off", json::parse(R"([{"name": "aligned"}, {"name": "p", "params": {"off": 8}},
      {"name": "c", "offset_bytes": {"x": 4, "out": "2 * 6"}}, {"name": "h", "params": {"dtype": "bf16"}, "offset_bytes": {"x": 2}}])")));
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  const KernelSpec& k = m.kernels.at(0);
  EXPECT_EQ(plan_case(k, k.cases[0]).tensors[0].offset_bytes, 0);
  EXPECT_EQ(plan_case(k, k.cases[1]).tensors[0].offset_bytes, 8);
  const CasePlan c = plan_case(k, k.cases[2]);
  EXPECT_EQ(c.tensors[0].offset_bytes, 4);
  EXPECT_EQ(c.tensors[1].offset_bytes, 12);
  EXPECT_EQ(plan_case(k, k.cases[3]).tensors[0].offset_bytes, 2) << "one bf16 element";
}

TEST_F(MisalignedTensor, AnOffsetInsideAnElementOrBeyondTheAlignmentIsAnErrorNamingTheField) {
  const json one = json::parse(R"([{"name": "a"}])");
  EXPECT_NE(error_of(kernel_with(3, one)).find("m.json: /kernels/0/tensors/0/offset_bytes: case 'a': 3 bytes is not a whole number of f32 elements (4 bytes each)"),
            std::string::npos)
      << error_of(kernel_with(3, one));
  EXPECT_NE(error_of(kernel_with(256, one)).find("/kernels/0/tensors/0/offset_bytes: case 'a': 256 bytes: expected less than 256"), std::string::npos)
      << error_of(kernel_with(256, one));
  EXPECT_NE(error_of(kernel_with(-4, one)).find("/kernels/0/tensors/0/offset_bytes"), std::string::npos);
  EXPECT_NE(error_of(kernel_with(json::array(), one)).find("/kernels/0/tensors/0/offset_bytes: expected a number or an expression"),
            std::string::npos);
  const json odd = json::parse(R"([{"name": "h", "params": {"dtype": "bf16"}, "offset_bytes": {"x": 3}}])");
  EXPECT_NE(error_of(kernel_with(nullptr, odd)).find("case 'h', the offset_bytes of 'x': 3 bytes is not a whole number of bf16 elements"),
            std::string::npos)
      << error_of(kernel_with(nullptr, odd));
  const json unknown = json::parse(R"([{"name": "u", "offset_bytes": {"y": 4}}])");
  EXPECT_NE(error_of(kernel_with(nullptr, unknown)).find("case 'u' sets offset_bytes for 'y', which is not a tensor"), std::string::npos);
  const json not_object = json::parse(R"([{"name": "u", "offset_bytes": 4}])");
  EXPECT_NE(error_of(kernel_with(nullptr, not_object)).find("/kernels/0/cases/0/offset_bytes: expected an object"), std::string::npos);
}

// The offset is part of the case (its fingerprint: a result for the aligned case says nothing of
// the misaligned one) but not of the reference's outputs, which the same inputs determine.
TEST_F(MisalignedTensor, TheOffsetChangesTheFingerprintButNotTheReferenceKey) {
  const ManifestLoad m = load(kernel_with("off", json::parse(R"([{"name": "a"}])")));
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  const KernelSpec& k = m.kernels.at(0);
  CaseSpec shifted = k.cases[0];
  shifted.offset_bytes["x"] = "4";
  const CaseJob aligned_job = make_case_job(k, k.cases[0], 1, 1, "");
  const CaseJob shifted_job = make_case_job(k, shifted, 1, 1, "");
  EXPECT_NE(case_fingerprint(k, k.cases[0], 1, 1, ""), case_fingerprint(k, shifted, 1, 1, ""));
  EXPECT_EQ(reference_cache_key(aligned_job, "lib"), reference_cache_key(shifted_job, "lib"));
  const CaseJob back = json(shifted_job).get<CaseJob>();
  EXPECT_EQ(back.plan.tensors[0].offset_bytes, 4) << "the worker gets the offset with the job";
  EXPECT_EQ(back.plan.tensors[1].offset_bytes, 0);
  json bad = shifted_job;
  bad["plan"]["tensors"][0]["offset_bytes"] = 300;
  EXPECT_THROW(bad.get<CaseJob>(), std::exception);
}

// The leading guard grows by the offset, so both guards still touch the tensor: a write one
// element before or after it changes a guard byte, at offsets counted from the tensor.
TEST(MisalignedGuards, TheGuardsStayRightAroundAnOffsetTensor) {
  const uint64_t allocation = 0x10000;
  const size_t offset = 12;
  const BufferGuards g = buffer_guards(1, allocation, 100, 64, 28, offset);
  EXPECT_EQ(allocation_bytes(100, offset), 2 * kGuardBytes + offset + 100);
  const uint64_t tensor = allocation + data_offset(offset);
  EXPECT_EQ(tensor % 16, offset);
  EXPECT_EQ(g.before_at + g.before.size(), tensor) << "the leading guard ends at the tensor's first byte";
  EXPECT_EQ(g.before_at, allocation - 64);
  EXPECT_EQ(g.after_at, tensor + 100) << "the trailing guard starts at its last byte + 1";
  EXPECT_EQ(g.after.size(), kGuardBytes + 28);
  std::vector<uint8_t> before = g.before;
  before[before.size() - 4] ^= 1;  // x[-1] of f32
  const auto v = check_guard("x", "before", before, g.before);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->first_offset, -4);
  std::vector<uint8_t> after = g.after;
  after[0] ^= 1;  // x[n]
  EXPECT_EQ(check_guard("x", "after", after, g.after)->first_offset, 0);
  EXPECT_FALSE(check_guard("x", "before", g.before, g.before));
}

}  // namespace
}  // namespace hk
