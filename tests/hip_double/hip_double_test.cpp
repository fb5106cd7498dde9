// The HIP test double must behave as a HIP runtime does where hkcheck relies on it, or a pass
// through it proves nothing: its options and code objects, its properties in both layouts (ROCm
// 5's against that release's own header), a kernel compiled, loaded and run through its C
// interface, and its injected faults. Each test loads a private copy of the library, so that its
// environment variables are read afresh however the tests are run.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "backends/hip_device_props.h"
#include "code_object.h"
#include "util/file_util.h"
#include "hiprtc_options.h"
#include "test_util.h"

namespace hk::hip_double {
namespace {

namespace fs = std::filesystem;

TEST(HipDoubleOptions, KeepsWhatDecidesTheKernelAndDropsWhatOnlyAGpuCompileMeans) {
  const HostCompileOptions o = host_compile_options({"--offload-arch=gfx942:sramecc+", "-std=c++17", "-DHK_BACKEND_HIP=1", "-DT=f32",
                                                     "-I/x", "-include", "hk_hiprtc5.h", "-O3", "-ffast-math", "-D", "HK_BACKEND_HIP",
                                                     "-isystem/y", "--hiprtc-no-builtin-header", "-U", "NDEBUG"});
  EXPECT_EQ(o.arch, "gfx942");
  EXPECT_EQ(o.options, (std::vector<std::string>{"-std=c++17", "-DT=f32", "-I/x", "-include", "hk_hiprtc5.h", "-isystem/y", "-U", "NDEBUG"}));
  EXPECT_EQ(host_compile_options({"-DT=f32"}).arch, "") << "no target: the device's";
}

std::string library_bytes() { return read_file(std::string(HIP_DOUBLE_ROCM6_DIR) + "/libamdhip64.so", "the double"); }

TEST(HipDoubleCodeObject, TheTableIsFoundWhereTheElfFileEnds) {
  const CodeObject code{library_bytes(), {{"act<float>", "e0"}, {"scale", "e1"}}};
  std::string why;
  const auto back = unpack_code_object(pack_code_object(code).data(), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->library, code.library);
  EXPECT_EQ(back->entries, code.entries);
}

TEST(HipDoubleCodeObject, RefusesAnImageItDidNotBuild) {
  std::string lib = library_bytes() + std::string(64, '\0');
  std::string why;
  EXPECT_FALSE(unpack_code_object(lib.data(), &why));
  EXPECT_NE(why.find("no kernel table"), std::string::npos) << why;
  lib[18] = static_cast<char>(224);  // e_machine: EM_AMDGPU, a real code object
  lib[19] = 0;
  EXPECT_FALSE(unpack_code_object(lib.data(), &why));
  EXPECT_NE(why.find("AMDGPU"), std::string::npos) << why;
  EXPECT_FALSE(unpack_code_object("not an ELF file", &why));
}

// The double's C interface, from a private copy of one of its builds.
struct Double {
  test::TempDir dir;
  void* lib = nullptr;

  explicit Double(const char* build_dir) {
    const std::string copy = dir.path() + "/libamdhip64.so";
    fs::copy_file(std::string(build_dir) + "/libamdhip64.so", copy);
    lib = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) ADD_FAILURE() << dlerror();
  }
  ~Double() {
    if (lib) dlclose(lib);
  }
  void* has(const char* name) const { return dlsym(lib, name); }
  template <typename F>
  F fn(const char* name) const {
    void* p = dlsym(lib, name);
    if (!p) ADD_FAILURE() << "the double has no " << name;
    return reinterpret_cast<F>(p);
  }

  hipError_t props(const char* function, void* out) const { return fn<hipError_t (*)(void*, int)>(function)(out, 0); }
  int runtime_version() const {
    int v = 0;
    EXPECT_EQ(fn<hipError_t (*)(int*)>("hipRuntimeGetVersion")(&v), hipSuccess);
    return v;
  }
  hipError_t malloc(void** p, size_t n) const { return fn<hipError_t (*)(void**, size_t)>("hipMalloc")(p, n); }
  hipError_t synchronize() const { return fn<hipError_t (*)()>("hipDeviceSynchronize")(); }
};

// What ROCm 5's layout must hold, read through ROCm 5's own header.
void expect_rocm5_layout(const hipDeviceProp_t& p) {
  EXPECT_STREQ(p.gcnArchName, "gfx942:sramecc+:xnack-");
  EXPECT_EQ(p.warpSize, 64);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_EQ(p.maxThreadsDim[2], 1024);
  EXPECT_EQ(p.maxGridSize[0], 2147483647);
  EXPECT_EQ(p.sharedMemPerBlock, 65536u);
  EXPECT_GT(p.totalGlobalMem, 0u);
}

TEST(HipDoubleRocm5, HasTheOldLayoutOnlyAndHipRtcInside) {
  Double d(HIP_DOUBLE_ROCM5_DIR);
  EXPECT_FALSE(d.has("hipGetDevicePropertiesR0600"));
  EXPECT_FALSE(d.has("hipGetDevicePropertiesR0000"));
  EXPECT_TRUE(d.has("hiprtcCompileProgram"));
  EXPECT_FALSE(fs::exists(std::string(HIP_DOUBLE_ROCM5_DIR) + "/libhiprtc.so"));
  hipDeviceProp_t p{};
  ASSERT_EQ(d.props("hipGetDeviceProperties", &p), hipSuccess);
  expect_rocm5_layout(p);
  EXPECT_EQ(d.runtime_version(), 50221153);
}

TEST(HipDoubleRocm6, FillsTheNewLayoutThroughR0600AndTheOldOneUnsuffixed) {
  Double d(HIP_DOUBLE_ROCM6_DIR);
  std::vector<unsigned char> p(kHipPropsR0600.size);
  ASSERT_EQ(d.props("hipGetDevicePropertiesR0600", p.data()), hipSuccess);
  EXPECT_EQ(hip_prop_text(p.data(), kHipPropsR0600.gcn_arch_name), "gfx942:sramecc+:xnack-");
  EXPECT_EQ(hip_prop<int>(p.data(), kHipPropsR0600.warp_size), 64);
  EXPECT_EQ(hip_prop<int>(p.data(), kHipPropsR0600.max_threads_per_block), 1024);
  // Read in the old layout, the new one gives nothing plausible: hkcheck's check can tell.
  EXPECT_NE(hip_prop<int>(p.data(), kHipPropsR0000.warp_size), 64);
  EXPECT_EQ(hip_prop_text(p.data(), kHipPropsR0000.gcn_arch_name).rfind("gfx", 0), std::string::npos);
  for (const char* old : {"hipGetDeviceProperties", "hipGetDevicePropertiesR0000"}) {
    hipDeviceProp_t q{};
    ASSERT_EQ(d.props(old, &q), hipSuccess) << old;
    expect_rocm5_layout(q);
  }
  EXPECT_EQ(d.runtime_version(), 60443484);
}

TEST(HipDoubleRocm6, LibhiprtcIsTheSameLibrary) {
  void* hip = dlopen((std::string(HIP_DOUBLE_ROCM6_DIR) + "/libamdhip64.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  void* rtc = dlopen((std::string(HIP_DOUBLE_ROCM6_DIR) + "/libhiprtc.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(hip && rtc) << dlerror();
  EXPECT_EQ(hip, rtc) << "one device and one hipRTC per process";
  dlclose(rtc);
  dlclose(hip);
}

const char* kScale = R"(
extern "C" __global__ void scale(float* out, const float* x, float a, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i];
}
)";

// A program compiled by the double's hipRTC: its result, log and code.
struct Compiled {
  hiprtcResult result;
  std::string log, code, lowered;
};

Compiled compile(const Double& d, const char* source, std::vector<const char*> options) {
  hiprtcProgram prog = nullptr;
  Compiled c{};
  EXPECT_EQ(d.fn<decltype(&hiprtcCreateProgram)>("hiprtcCreateProgram")(&prog, source, "scale.hip", 0, nullptr, nullptr), HIPRTC_SUCCESS);
  EXPECT_EQ(d.fn<decltype(&hiprtcAddNameExpression)>("hiprtcAddNameExpression")(prog, "scale"), HIPRTC_SUCCESS);
  c.result = d.fn<decltype(&hiprtcCompileProgram)>("hiprtcCompileProgram")(prog, static_cast<int>(options.size()), options.data());
  size_t n = 0;
  EXPECT_EQ(d.fn<decltype(&hiprtcGetProgramLogSize)>("hiprtcGetProgramLogSize")(prog, &n), HIPRTC_SUCCESS);
  c.log.resize(n);
  d.fn<decltype(&hiprtcGetProgramLog)>("hiprtcGetProgramLog")(prog, c.log.data());
  if (c.result == HIPRTC_SUCCESS) {
    EXPECT_EQ(d.fn<decltype(&hiprtcGetCodeSize)>("hiprtcGetCodeSize")(prog, &n), HIPRTC_SUCCESS);
    c.code.resize(n);
    d.fn<decltype(&hiprtcGetCode)>("hiprtcGetCode")(prog, c.code.data());
    const char* lowered = nullptr;
    EXPECT_EQ(d.fn<decltype(&hiprtcGetLoweredName)>("hiprtcGetLoweredName")(prog, "scale", &lowered), HIPRTC_SUCCESS);
    c.lowered = lowered ? lowered : "";
  }
  d.fn<decltype(&hiprtcDestroyProgram)>("hiprtcDestroyProgram")(&prog);
  return c;
}

// scale() loaded from the double's own compile.
hipFunction_t load_scale(const Double& d) {
  const Compiled c = compile(d, kScale, {"--offload-arch=gfx942", "-O3"});
  EXPECT_EQ(c.result, HIPRTC_SUCCESS) << c.log;
  hipModule_t m = nullptr;
  EXPECT_EQ(d.fn<hipError_t (*)(hipModule_t*, const void*)>("hipModuleLoadData")(&m, c.code.data()), hipSuccess);
  hipFunction_t f = nullptr;
  EXPECT_EQ(d.fn<hipError_t (*)(hipFunction_t*, hipModule_t, const char*)>("hipModuleGetFunction")(&f, m, c.lowered.c_str()), hipSuccess);
  return f;
}

hipError_t launch(const Double& d, hipFunction_t f, float* out, const float* x, float a, long long n) {
  void* args[] = {&out, &x, &a, &n, nullptr};
  using Launch = hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t, void**, void**);
  return d.fn<Launch>("hipModuleLaunchKernel")(f, static_cast<unsigned>((n + 63) / 64), 1, 1, 64, 1, 1, 0, nullptr, args, nullptr);
}

TEST(HipDoubleRuntime, CompilesLoadsAndRunsAKernel) {
  Double d(HIP_DOUBLE_ROCM6_DIR);
  const hipFunction_t f = load_scale(d);
  ASSERT_TRUE(f);
  const long long n = 1000;
  std::vector<float> x(n), out(n);
  for (long long i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  void *dx = nullptr, *dout = nullptr;
  ASSERT_EQ(d.malloc(&dx, n * sizeof(float)), hipSuccess);
  ASSERT_EQ(d.malloc(&dout, n * sizeof(float)), hipSuccess);
  auto htod = d.fn<hipError_t (*)(void*, void*, size_t)>("hipMemcpyHtoD");
  auto dtoh = d.fn<hipError_t (*)(void*, void*, size_t)>("hipMemcpyDtoH");
  ASSERT_EQ(htod(dx, x.data(), n * sizeof(float)), hipSuccess);
  EXPECT_EQ(htod(dx, x.data(), n * sizeof(float) + 1), hipErrorInvalidValue) << "past the allocation";

  hipEvent_t start = nullptr, stop = nullptr;
  auto create = d.fn<hipError_t (*)(hipEvent_t*)>("hipEventCreate");
  auto record = d.fn<hipError_t (*)(hipEvent_t, hipStream_t)>("hipEventRecord");
  ASSERT_EQ(create(&start), hipSuccess);
  ASSERT_EQ(create(&stop), hipSuccess);
  ASSERT_EQ(record(start, nullptr), hipSuccess);
  ASSERT_EQ(launch(d, f, static_cast<float*>(dout), static_cast<float*>(dx), 2.f, n), hipSuccess);
  ASSERT_EQ(record(stop, nullptr), hipSuccess);
  float ms = -1;
  ASSERT_EQ(d.fn<hipError_t (*)(float*, hipEvent_t, hipEvent_t)>("hipEventElapsedTime")(&ms, start, stop), hipSuccess);
  EXPECT_GE(ms, 0.f);
  ASSERT_EQ(d.synchronize(), hipSuccess);
  ASSERT_EQ(dtoh(out.data(), dout, n * sizeof(float)), hipSuccess);
  for (long long i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.f * i) << i;

  int threads = 0;
  ASSERT_EQ(d.fn<hipError_t (*)(int*, hipFunction_attribute, hipFunction_t)>("hipFuncGetAttribute")(
                &threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
            hipSuccess);
  EXPECT_EQ(threads, 1024);
  int bogus = 0;
  EXPECT_EQ(d.fn<hipError_t (*)(void*)>("hipFree")(&bogus), hipErrorInvalidValue);
  EXPECT_EQ(d.fn<hipError_t (*)(void*)>("hipFree")(dx), hipSuccess);
}

TEST(HipDoubleRuntime, AnswersAsARuntimeDoesForWhatIsMissingOrWrong) {
  Double d(HIP_DOUBLE_ROCM6_DIR);
  const Compiled c = compile(d, kScale, {"--offload-arch=gfx942"});
  ASSERT_EQ(c.result, HIPRTC_SUCCESS) << c.log;
  auto load = d.fn<hipError_t (*)(hipModule_t*, const void*)>("hipModuleLoadData");
  hipModule_t m = nullptr;
  ASSERT_EQ(load(&m, c.code.data()), hipSuccess);
  hipFunction_t f = nullptr;
  EXPECT_EQ(d.fn<hipError_t (*)(hipFunction_t*, hipModule_t, const char*)>("hipModuleGetFunction")(&f, m, "nope"), hipErrorNotFound);
  EXPECT_EQ(load(&m, "\x7f" "ELF but not really"), hipErrorInvalidImage);
  EXPECT_STREQ(d.fn<const char* (*)(hipError_t)>("hipGetErrorName")(hipErrorNotFound), "hipErrorNotFound");

  const Compiled broken = compile(d, "extern \"C\" __global__ void scale(float* out) { out[0] = ; }", {"--offload-arch=gfx942"});
  EXPECT_EQ(broken.result, HIPRTC_ERROR_COMPILATION);
  // The compiler's own words: g++ says "expected primary-expression", clang "expected expression".
  EXPECT_NE(broken.log.find("scale.hip:1:"), std::string::npos) << broken.log;
  EXPECT_NE(broken.log.find("expected"), std::string::npos) << broken.log;
  const Compiled other = compile(d, kScale, {"--offload-arch=gfx90a"});
  EXPECT_EQ(other.result, HIPRTC_ERROR_INVALID_OPTION);
  EXPECT_NE(other.log.find("gfx942 (mi325x)"), std::string::npos) << other.log;
}

// A fault variable set for one private copy of the library.
struct WithVariable {
  std::string name;
  WithVariable(std::string n, const char* value) : name(std::move(n)) { setenv(name.c_str(), value, 1); }
  ~WithVariable() { unsetenv(name.c_str()); }
};

TEST(HipDoubleFaults, AnIllegalAddressFailsEveryLaterCall) {
  WithVariable v("HKCHECK_HIP_DOUBLE_ILLEGAL_ADDRESS", "scale");
  Double d(HIP_DOUBLE_ROCM6_DIR);
  const hipFunction_t f = load_scale(d);
  void* p = nullptr;
  ASSERT_EQ(d.malloc(&p, 64 * sizeof(float)), hipSuccess);
  EXPECT_EQ(launch(d, f, static_cast<float*>(p), static_cast<float*>(p), 1.f, 64), hipErrorIllegalAddress);
  EXPECT_EQ(d.synchronize(), hipErrorIllegalAddress);
  EXPECT_EQ(d.malloc(&p, 4), hipErrorIllegalAddress);
  EXPECT_EQ(launch(d, f, static_cast<float*>(p), static_cast<float*>(p), 1.f, 64), hipErrorIllegalAddress);
}

TEST(HipDoubleFaults, ALostDeviceFailsTheCallsAfterTheLaunch) {
  WithVariable v("HKCHECK_HIP_DOUBLE_LOSE_DEVICE", "scale");
  Double d(HIP_DOUBLE_ROCM6_DIR);
  const hipFunction_t f = load_scale(d);
  void* p = nullptr;
  ASSERT_EQ(d.malloc(&p, 64 * sizeof(float)), hipSuccess);
  EXPECT_EQ(launch(d, f, static_cast<float*>(p), static_cast<float*>(p), 1.f, 64), hipSuccess);
  EXPECT_EQ(d.synchronize(), hipErrorNoDevice);
  EXPECT_EQ(d.malloc(&p, 4), hipErrorNoDevice);
}

TEST(HipDoubleFaults, AFailedAllocationIsNotSticky) {
  WithVariable v("HKCHECK_HIP_DOUBLE_MAX_ALLOC", "1000");
  Double d(HIP_DOUBLE_ROCM6_DIR);
  void* p = nullptr;
  EXPECT_EQ(d.malloc(&p, 1001), hipErrorOutOfMemory);
  EXPECT_EQ(d.malloc(&p, 1000), hipSuccess);
  EXPECT_EQ(d.synchronize(), hipSuccess);
}

TEST(HipDoubleFaults, AMissingEntryIsNotFound) {
  WithVariable v("HKCHECK_HIP_DOUBLE_MISSING_ENTRY", "scale");
  Double d(HIP_DOUBLE_ROCM6_DIR);
  const Compiled c = compile(d, kScale, {"--offload-arch=gfx942"});
  hipModule_t m = nullptr;
  ASSERT_EQ(d.fn<hipError_t (*)(hipModule_t*, const void*)>("hipModuleLoadData")(&m, c.code.data()), hipSuccess);
  hipFunction_t f = nullptr;
  EXPECT_EQ(d.fn<hipError_t (*)(hipFunction_t*, hipModule_t, const char*)>("hipModuleGetFunction")(&f, m, "scale"), hipErrorNotFound);
}

TEST(HipDoubleFaults, AVariableThatIsNotValidLeavesNoDevice) {
  WithVariable v("HKCHECK_HIP_DOUBLE_MAX_ALLOC", "12x");
  Double d(HIP_DOUBLE_ROCM6_DIR);
  int count = -1;
  EXPECT_EQ(d.fn<hipError_t (*)(int*)>("hipGetDeviceCount")(&count), hipErrorInvalidValue);
  EXPECT_EQ(count, 0);
}

}  // namespace
}  // namespace hk::hip_double
