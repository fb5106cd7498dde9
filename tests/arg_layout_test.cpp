// Struct arguments laid out as C++ lays out the kernel's type: each layout hkcheck computes is
// checked against the compiler's own sizeof/offsetof of the same struct, and the bytes against
// the fields read back through it.
#include "model/arg_layout.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <nlohmann/json.hpp>

#include "contracts/case_job.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/plan_case.h"
#include "test_util.h"

namespace hk {
namespace arg_layout_test {

using nlohmann::json;

struct StructArguments : ::testing::Test {
  test::TempDir dir;
  // The plan of a kernel with tensors a and b (8 floats each) and these arguments.
  CasePlan plan_of(const json& args, const json& params = json::object()) {
    dir.write("k.cu", "__global__ void k() {}\n");
    json k = {{"name", "k"}, {"source", "k.cu"}, {"entry", "k"}, {"reference", "k"}, {"params", params},
              {"cases", {{{"name", "one"}}}},
              {"tensors", {{{"name", "a"}, {"dtype", "f32"}, {"shape", {8}}, {"role", "in"}, {"init", {{"kind", "normal"}}}},
                           {{"name", "b"}, {"dtype", "f32"}, {"shape", {8}}, {"role", "out"}}}},
              {"args", args}, {"launch", {{"grid", {1}}, {"block", {1}}}}};
    const ManifestLoad m = load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {k}}}.dump()));
    if (!m.errors.empty()) throw std::runtime_error(m.errors[0]);
    return plan_case(m.kernels.at(0), m.kernels.at(0).cases.at(0));
  }
  std::string error_of(const json& args) {
    try {
      plan_of(args);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
};

// A descriptor as tile libraries write it: a pointer, run-time dims, an empty member.
struct Empty {};
struct Descriptor {
  float* data;
  int rows, cols;
  Empty reserved;
};
struct alignas(16) Aligned {
  short s;
};
struct Globals {
  Descriptor x, y;
  bool flag;
  int8_t i8;
  uint16_t u16;
  double scale;
  uint8_t tail;
  Aligned v;
  int counts[3];
};

json descriptor(const char* tensor) {
  return {{"name", tensor}, {"struct", {{{"tensor", tensor}}, {{"dtype", "i32"}, {"value", "rows"}}, {{"dtype", "i32"}, {"value", 3}}, {{"bytes", 1}}}}};
}

TEST_F(StructArguments, AStructIsLaidOutAsTheCompilerLaysOutTheSameType) {
  const json globals = {{"struct", {descriptor("a"), descriptor("b"), {{"dtype", "bool"}, {"value", true}}, {{"dtype", "i8"}, {"value", -5}},
                                    {{"dtype", "u16"}, {"value", 65535}}, {{"dtype", "f64"}, {"value", "rows / 4"}}, {{"dtype", "u8"}, {"value", 200}},
                                    {{"struct", {{{"dtype", "i16"}, {"value", -2}}}}, {"align", 16}},
                                    {{"array", {{"dtype", "i32"}, {"value", "rows * 2"}}}, {"count", 3}}}}};
  const CasePlan plan = plan_of(json::array({globals}), {{"rows", 6}});
  const ArgLayout l = layout_of(plan.args[0]);
  EXPECT_EQ(l.bytes, sizeof(Globals));
  EXPECT_EQ(l.align, alignof(Globals));
  const std::vector<uint8_t> bytes = argument_bytes(plan.args[0], {0x1000, 0x2000});
  ASSERT_EQ(bytes.size(), sizeof(Globals));
  Globals g;
  std::memcpy(static_cast<void*>(&g), bytes.data(), sizeof g);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(g.x.data), 0x1000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(g.y.data), 0x2000u);
  EXPECT_EQ(g.x.rows, 6);
  EXPECT_EQ(g.y.cols, 3);
  EXPECT_TRUE(g.flag);
  EXPECT_EQ(g.i8, -5);
  EXPECT_EQ(g.u16, 65535);
  EXPECT_EQ(g.scale, 1.5);
  EXPECT_EQ(g.tail, 200);
  EXPECT_EQ(g.v.s, -2);
  EXPECT_EQ(g.counts[0], 12);
  EXPECT_EQ(g.counts[2], 12);
  // Padding is zero: the bytes are the same on every run, whatever the stack held.
  EXPECT_EQ(bytes[offsetof(Descriptor, reserved) + 1], 0);
  const std::string text = describe_layout(plan.args[0], plan);
  EXPECT_NE(text.find("struct of 112 bytes, aligned to 16"), std::string::npos) << text;
  EXPECT_NE(text.find("a @0 (struct of 24 bytes, aligned to 8: #0 @0 (tensor 'a', a device pointer), #1 @8 (i32)"), std::string::npos) << text;
}

TEST_F(StructArguments, HalfPrecisionAndEmptyStructsTakeTheirCppSizes) {
  const CasePlan plan = plan_of({{{"struct", json::array()}}, {{"struct", {{{"dtype", "bf16"}, {"value", 1.5}}, {{"dtype", "f16"}, {"value", -2}}}}}});
  EXPECT_EQ(layout_of(plan.args[0]).bytes, sizeof(Empty));
  const std::vector<uint8_t> halves = argument_bytes(plan.args[1], {0, 0});
  ASSERT_EQ(halves.size(), 4u);
  EXPECT_EQ(halves[0] | halves[1] << 8, 0x3FC0);  // bf16 1.5
  EXPECT_EQ(halves[2] | halves[3] << 8, 0xC000);  // f16 -2
}

TEST_F(StructArguments, ABadFieldIsAnErrorNamingItsPath) {
  EXPECT_NE(error_of({{{"struct", {{{"tensor", "a"}}, {{"dtype", "i4"}, {"value", 1}}}}}}).find("/args/0/struct/1/dtype"), std::string::npos);
  EXPECT_NE(error_of({{{"struct", {{{"tensor", "nope"}}}}}}).find("/args/0/struct/0/tensor"), std::string::npos);
  EXPECT_NE(error_of({{{"array", {{"dtype", "i32"}, {"value", 1}}}}}).find("/args/0/count"), std::string::npos);
  EXPECT_NE(error_of({{{"struct", {{{"dtype", "i8"}, {"value", 300}}}}}}).find("300 does not fit a i8 argument"), std::string::npos);
  EXPECT_NE(error_of({{{"struct", json::array()}, {"align", 12}}}).find("12 is not a power of two"), std::string::npos);
  EXPECT_NE(error_of({{{"dtype", "bool"}, {"value", 2}}}).find("2 does not fit a bool argument"), std::string::npos);
  EXPECT_NE(error_of({{{"struct", {{{"struct", {{{"bytes", 0}}}}}}}}}).find("/args/0/struct/0/struct/0/bytes"), std::string::npos);
  EXPECT_NE(error_of({{{"strukt", json::array()}}}).find("expected a tensor name or an object with one of"), std::string::npos);
}

// A struct argument crosses to the worker in its case job and comes back the same.
TEST_F(StructArguments, AStructArgumentSurvivesTheCaseJob) {
  CaseJob job;
  job.plan = plan_of({descriptor("b"), {{"dtype", "u8"}, {"value", 7}}}, {{"rows", 2}});
  CaseJob back = nlohmann::json(job).get<CaseJob>();
  ASSERT_EQ(back.plan.args.size(), 2u);
  EXPECT_EQ(argument_bytes(back.plan.args[0], {1, 2}), argument_bytes(job.plan.args[0], {1, 2}));
  EXPECT_EQ(argument_bytes(back.plan.args[1], {1, 2}), std::vector<uint8_t>{7});
}

}  // namespace arg_layout_test
}  // namespace hk
