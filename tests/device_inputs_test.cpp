// The generator kernel (prelude/hk_input_generator.h) must give the host generator's bytes for
// every kind and dtype, or turn itself off. It runs here on the host backend (the kernel's own
// code, compiled by the host's compiler) and, where a GPU is, on the GPU.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "platform/backend.h"
#include "compile/compile_cache.h"
#include "worker/device_inputs.h"
#include "forwarding_backend.h"
#include "refs/generator.h"
#include "test_util.h"

namespace hk {
namespace {

const DType kEveryDtype[] = {DType::f32,  DType::f64, DType::f16, DType::bf16, DType::fp8e4m3, DType::fp8e5m2, DType::i8,   DType::u8,
                             DType::i32,  DType::i64, DType::u32, DType::u64,  DType::fp4e2m1, DType::e8m0,    DType::i16, DType::u16};

std::vector<GeneratorPlan> every_kind() {
  return {{"normal", {{"mean", 0.25}, {"std", 3}}},
          {"normal", {}},
          {"uniform", {{"low", -2}, {"high", 5}}},
          {"uniform", {{"low", 0.001}, {"high", 1e6}}},  // e8m0 and the wide integers see big values
          {"int", {{"low", -300.5}, {"high", 300}}},
          {"int", {{"low", 0}, {"high", 7}}},
          {"arange", {{"start", -5}, {"step", 0.75}, {"mod", 13}}},
          {"arange", {{"start", -1e5}, {"step", 3}}},
          {"constant", {{"value", -2.5}}}};
}

TensorPlan tensor(const GeneratorPlan& g, DType dtype, int64_t n) {
  TensorPlan t;
  t.name = "x";
  t.dtype = dtype;
  t.shape = {n};
  t.numel = n;
  t.role = Role::in;
  t.init = g;
  return t;
}

// The backend named by the test's parameter; a GPU one skips where there is none.
std::unique_ptr<Backend> backend_or_skip(const std::string& name) {
  try {
    return open_backend(name, 0, HostOptions{"h100", 2});
  } catch (const std::exception& e) {
    return nullptr;
  }
}

struct DeviceInputsTest : ::testing::TestWithParam<const char*> {
  std::unique_ptr<Backend> be = backend_or_skip(GetParam());
  CompileCache cache{""};
  std::unique_ptr<DeviceInputs> inputs = be ? std::make_unique<DeviceInputs>(*be, cache, true) : nullptr;

  // Makes t on the device and returns its bytes, or fails the test.
  std::vector<uint8_t> made(const TensorPlan& t, uint64_t seed) {
    const uint64_t ptr = be->alloc(t.bytes());
    std::vector<uint8_t> got(t.bytes(), 0xA5);
    be->upload(ptr, got.data(), got.size());  // poisoned: an element the kernel skips shows
    const bool ok = inputs->make(t, seed, ptr);
    be->download(got.data(), ptr, got.size());
    be->free(ptr);
    const std::vector<std::string> notes = inputs->take_notes();
    EXPECT_TRUE(ok) << (notes.empty() ? "" : notes.front());
    return got;
  }
};

TEST_P(DeviceInputsTest, GiveTheHostGeneratorsBytesForEveryKindAndDtype) {
  if (!be) GTEST_SKIP() << "no " << GetParam() << " device here";
  for (const GeneratorPlan& g : every_kind())
    for (const DType d : kEveryDtype)
      for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{4096}, int64_t{70001}}) {
        const TensorPlan t = tensor(g, d, n);
        const uint64_t seed = 0x5EED0000u + static_cast<uint64_t>(n);
        const std::vector<uint8_t> want = generate_packed(g, d, n, seed), got = made(t, seed);
        ASSERT_EQ(got.size(), want.size());
        const auto diff = std::mismatch(want.begin(), want.end(), got.begin());
        ASSERT_TRUE(diff.first == want.end()) << g.kind << " " << dtype_name(d) << " n=" << n << ": byte " << (diff.first - want.begin())
                                              << " is " << int(*diff.second) << ", the host makes " << int(*diff.first);
      }
}

// Outputs poisoned on the device hold the host's poison in every storage unit.
TEST_P(DeviceInputsTest, PoisonOutputsAsTheHostDoes) {
  if (!be) GTEST_SKIP() << "no " << GetParam() << " device here";
  for (const DType d : kEveryDtype)
    for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{70001}}) {
      TensorPlan t = tensor({"normal", {}}, d, n);
      t.role = Role::out;
      const uint64_t ptr = be->alloc(t.bytes());
      std::vector<uint8_t> got(t.bytes(), 0);
      be->upload(ptr, got.data(), got.size());
      ASSERT_TRUE(inputs->poison(t, ptr)) << dtype_name(d);
      be->download(got.data(), ptr, got.size());
      be->free(ptr);
      EXPECT_EQ(got, poisoned_buffer(d, n)) << dtype_name(d) << " n=" << n;
    }
}

// A tensor placed off its element's alignment (offset_bytes) is left to the host: the kernels'
// whole-element stores would fault there on a GPU. The generator stays on for the others.
TEST_P(DeviceInputsTest, LeaveMisalignedTensorsToTheHost) {
  if (!be) GTEST_SKIP() << "no " << GetParam() << " device here";
  TensorPlan t = tensor({"normal", {}}, DType::f32, 10);
  const uint64_t base = be->alloc(64);
  EXPECT_FALSE(inputs->make(t, 1, base + 2));
  t.role = Role::out;
  EXPECT_FALSE(inputs->poison(t, base + 2));
  EXPECT_TRUE(inputs->poison(t, base + 4));
  t.role = Role::in;
  EXPECT_TRUE(inputs->make(t, 1, base + 4));
  be->free(base);
  EXPECT_TRUE(inputs->take_notes().empty()) << "a misaligned tensor turns nothing off";
}

// Past 2^31 elements, where a 32-bit index would wrap: the last bytes are the host's.
TEST_P(DeviceInputsTest, IndexElementsPastTwoToTheThirtyFirst) {
  if (!be) GTEST_SKIP() << "no " << GetParam() << " device here";
  if (be->device().backend == "host") GTEST_SKIP() << "2 GiB on the CPU: the GPU runs this one";
  const int64_t n = (int64_t{1} << 31) + 5;
  const GeneratorPlan g{"normal", {}};
  const TensorPlan t = tensor(g, DType::fp8e4m3, n);
  const uint64_t ptr = be->alloc(t.bytes());
  ASSERT_TRUE(inputs->make(t, 42, ptr));
  const int64_t first = n - 4097;  // even
  std::vector<uint8_t> got(static_cast<size_t>(n - first));
  be->download(got.data(), ptr + static_cast<uint64_t>(first), got.size());
  be->free(ptr);
  EXPECT_EQ(got, generate_packed_range(*elementwise_generator(g), DType::fp8e4m3, first, n - first, 42));
}

TEST_P(DeviceInputsTest, LeaveWholeTensorAndDerivedKindsToTheHost) {
  if (!be) GTEST_SKIP() << "no " << GetParam() << " device here";
  CasePlan plan;
  plan.tensors = {tensor({"normal", {}}, DType::f32, 10), tensor({"permutation", {}}, DType::i32, 10),
                  tensor({"int", {{"low", 5}, {"high", 1}}}, DType::i32, 10), tensor({"normal", {}}, DType::f32, 0)};
  plan.tensors.push_back(tensor({"normal", {}}, DType::f32, 10));
  plan.tensors.back().role = Role::out;
  EXPECT_EQ(inputs->tensors_made_here(plan), (std::vector<bool>{true, false, false, false, false}));
  plan.tensors[1].init = {kDerivedKind, {}, "forward", "out"};  // made from the others by a reference run
  EXPECT_EQ(inputs->tensors_made_here(plan), (std::vector<bool>(5, false)));
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceInputsTest, ::testing::Values("host", "cuda"));

// A backend whose downloads change one byte: the device generator must find it and turn off.
class OneByteOff : public test::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  void download(void* dst, uint64_t src, size_t bytes) override {
    ForwardingBackend::download(dst, src, bytes);
    if (bytes > 3) static_cast<uint8_t*>(dst)[3] ^= 0x10;
  }
};

TEST(DeviceInputsTrust, TurnOffWhenTheDeviceDisagreesWithTheHost) {
  OneByteOff be(open_backend("host", 0, HostOptions{"h100", 2}));
  CompileCache cache("");
  DeviceInputs inputs(be, cache, true);
  CasePlan plan;
  plan.tensors = {tensor({"normal", {}}, DType::bf16, 100)};
  ASSERT_EQ(inputs.tensors_made_here(plan), std::vector<bool>{true});
  const uint64_t ptr = be.alloc(200);
  EXPECT_FALSE(inputs.make(plan.tensors[0], 7, ptr));
  be.free(ptr);
  const std::vector<std::string> notes = inputs.take_notes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("tensor 'x' (normal bf16, 100 elements) with byte 3"), std::string::npos) << notes[0];
  EXPECT_EQ(inputs.tensors_made_here(plan), std::vector<bool>{false});  // off for the rest of the worker
}

TEST(DeviceInputsTrust, TurnOffWhenTheDevicePoisonsOtherwise) {
  OneByteOff be(open_backend("host", 0, HostOptions{"h100", 2}));
  CompileCache cache("");
  DeviceInputs inputs(be, cache, true);
  TensorPlan t = tensor({"normal", {}}, DType::f32, 100);
  t.role = Role::out;
  const uint64_t ptr = be.alloc(400);
  EXPECT_FALSE(inputs.poison(t, ptr));
  be.free(ptr);
  const std::vector<std::string> notes = inputs.take_notes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("poisoned output 'x' (f32, 100 elements) with other bytes than the CPU at byte 0"), std::string::npos) << notes[0];
}

}  // namespace
}  // namespace hk
