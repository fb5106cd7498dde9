// The device part of a kernel file with host code: kernels and what they use kept byte for byte,
// host functions, host globals and host-only includes blanked, every line where it was.
#include "device_part.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "entry_symbols.h"
#include "hiprtc_hints.h"
#include "kernel_file_compile.h"

namespace hk {
namespace {

const char* kProgram = R"(#include <cstdio>
#include <vector>
#include <iostream>
#include <cublas_v2.h>
#include <nvtx3/nvToolsExt.h>
#include <cuda_fp16.h>
#define BLOCK 128
static cublasHandle_t handle;
std::vector<int> unused_host_table;
struct Shape { int n; };
struct HostOnly { std::vector<float> v; };
constexpr float kScale = 3.0f;
template <typename T> __device__ T twice(T x) { return x + x; }
__global__ void __launch_bounds__(BLOCK) scale(float* out, const float* in, Shape s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) out[i] = twice(in[i]) * kScale;
  if (i == 0) printf("scaled %d\n", s.n);
}
void launch(float* o, const float* i, int n) {
  nvtxRangePush("scale");
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(o, i, Shape{n});
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, o, 1, i, 1, nullptr, o, 1);
}
int main() { std::cout << "hi\n"; launch(nullptr, nullptr, 0); return 0; }
)";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DevicePart, KeepsKernelsAndWhatTheyUseAndBlanksHostCode) {
  const DevicePart p = device_part(kProgram, "/tmp/hk_device_part_test.cu", {}, false);
  ASSERT_TRUE(p.changed());
  EXPECT_EQ(p.source.size(), std::string(kProgram).size());
  EXPECT_EQ(std::count(p.source.begin(), p.source.end(), '\n'), std::count(kProgram, kProgram + p.source.size(), '\n'));
  for (const char* kept : {"#include <cstdio>", "#include <cuda_fp16.h>", "#define BLOCK 128", "struct Shape { int n; };",
                           "constexpr float kScale = 3.0f;", "__device__ T twice", "scale(float* out"})
    EXPECT_TRUE(contains(p.source, kept)) << kept;
  for (const char* gone : {"<vector>", "<iostream>", "cublas_v2.h", "nvToolsExt", "cublasHandle_t", "unused_host_table", "HostOnly",
                           "void launch", "<<<", "int main"})
    EXPECT_FALSE(contains(p.source, gone)) << gone;
  // The kernel is where it was, so the compiler's lines and columns are the author's.
  EXPECT_EQ(p.source.find("__global__"), std::string(kProgram).find("__global__"));
  EXPECT_EQ(p.missing_headers, std::vector<std::string>{"cuda_fp16.h"});
}

TEST(DevicePart, LeavesAFileWithoutHostCodeAsItIs) {
  const std::string src = "#include <cuda_fp16.h>\nstruct Unused { int x; };\n__global__ void k(float* y) { y[0] = 1.f; }\n";
  const DevicePart p = device_part(src, "/tmp/hk_device_part_plain.cu", {}, false);
  EXPECT_FALSE(p.changed());
  EXPECT_EQ(p.source, src);
}

TEST(DevicePart, TakesTheCompilesMacrosAndParsesHip) {
  const std::string src =
      "#include <hip/hip_runtime.h>\n#include <iostream>\n"
      "#ifdef WIDE\n__global__ void k(double* y) { y[0] = 1; }\n#else\n__global__ void k(float* y) { y[0] = 1; }\n#endif\n"
      "int main() { hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, nullptr); std::cout << 1; }\n";
  const DevicePart p = device_part(src, "/tmp/hk_device_part_hip.hip", {"-DWIDE=1"}, true);
  ASSERT_TRUE(p.changed());
  EXPECT_TRUE(contains(p.source, "#include <hip/hip_runtime.h>"));
  EXPECT_TRUE(contains(p.source, "__global__ void k(double* y)"));
  EXPECT_TRUE(contains(p.source, "__global__ void k(float* y)"));  // the inactive branch is left to the compiler
  EXPECT_FALSE(contains(p.source, "int main"));
  EXPECT_FALSE(contains(p.source, "<iostream>"));
}

TEST(DevicePart, KeepsTheExplicitInstantiationsOfKeptTemplatesOnly) {
  const std::string src =
      "template <typename T> __global__ void k(T* y) { y[0] = T(1); }\n"
      "template __global__ void k<float>(float*);\n"
      "template <typename T> void launch(T* y) { k<T><<<1, 1>>>(y); }\n"
      "template void launch<float>(float*);\n";
  const DevicePart p = device_part(src, "/tmp/hk_device_part_inst.cu", {}, false);
  EXPECT_TRUE(contains(p.source, "template __global__ void k<float>(float*);"));
  EXPECT_FALSE(contains(p.source, "launch"));
}

// A header included first through another header still belongs to the directive that names it.
TEST(DevicePart, AGuardedHeaderCountsForTheIncludeThatNamesIt) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hk_device_part_chain";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "device_math.h") << "#pragma once\nstruct Pair { float a, b; };\n";
  std::ofstream(dir / "host_utils.h") << "#pragma once\n#include \"device_math.h\"\nvoid host_helper();\n";
  const std::string src = "#include \"host_utils.h\"\n#include \"device_math.h\"\n"
                          "__global__ void k(Pair* p) { p->a = p->b; }\nint main() { host_helper(); }\n";
  const DevicePart p = device_part(src, (dir / "k.cu").string(), {}, false);
  EXPECT_TRUE(contains(p.source, "#include \"device_math.h\""));
  EXPECT_FALSE(contains(p.source, "host_utils.h"));
}

TEST(DevicePart, KeepsUsingDeclarationsOfWhatKernelsUse) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hk_device_part_using";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "lib.h") << "#pragma once\nnamespace lib { struct Acc { float v; }; }\n";
  const std::string src = "#include \"lib.h\"\n#include <vector>\nusing lib::Acc;\nusing std::vector;\n"
                          "__global__ void k(float* y) { Acc a{y[0]}; y[1] = a.v; }\nint main() { vector<int> v; }\n";
  const DevicePart p = device_part(src, (dir / "k.cu").string(), {}, false);
  EXPECT_TRUE(contains(p.source, "using lib::Acc;"));
  EXPECT_FALSE(contains(p.source, "using std::vector;"));
  EXPECT_FALSE(contains(p.source, "int main"));
}

TEST(DevicePart, HostOnlyHeaders) {
  for (const char* h : {"cublas_v2.h", "cublasLt.h", "nvtx3/nvToolsExt.h", "torch/all.h", "ATen/cuda/CUDAContext.h", "pybind11/pybind11.h",
                        "hipblas/hipblas.h", "rocblas/rocblas.h", "cuda_profiler_api.h", "cuda.h"})
    EXPECT_TRUE(host_only_header(h)) << h;
  for (const char* h : {"cuda_fp16.h", "cooperative_groups.h", "cub/block/block_reduce.cuh", "hip/hip_runtime.h", "common.h", "curand_kernel.h"})
    EXPECT_FALSE(host_only_header(h)) << h;
}

TEST(HiprtcHints, ExplainsTheBuiltInModesMisleadingErrors) {
  const std::string stdarg = "/usr/include/wchar.h:38:10: fatal error: 'stdarg.h' file not found";
  const std::string told = explain_hiprtc_errors(stdarg, false);
  EXPECT_TRUE(contains(told, "one of the compiler's own C headers")) << told;
  EXPECT_TRUE(contains(told, "--hiprtc-no-builtin-header"));
  EXPECT_FALSE(contains(explain_missing_headers(told), "include_dirs")) << "not a header the project lacks";
  const std::string redefined = "/usr/include/c++/12/type_traits:62:12: error: redefinition of 'integral_constant'";
  EXPECT_TRUE(contains(explain_hiprtc_errors(redefined, true), "built-in header defines its own std::integral_constant"));
  EXPECT_TRUE(contains(explain_hiprtc_errors(redefined, true), "ROCm 6's and 7's hipRTC"));
  for (const std::string other : {"k.hip:2:10: fatal error: 'util.hpp' file not found", "k.hip:3:1: error: redefinition of 'f'"})
    EXPECT_EQ(explain_hiprtc_errors(other, false), other);
}

TEST(EntrySymbols, DemanglesToTheNameExpressionThatInstantiatesIt) {
  EXPECT_TRUE(is_mangled_symbol("_Z7reduce0IiEvPT_S1_j"));
  EXPECT_FALSE(is_mangled_symbol("reduce0<int>"));
  EXPECT_FALSE(is_mangled_symbol("rms_norm_kernel"));
  EXPECT_EQ(name_expression_of_symbol("_Z7reduce0IiEvPT_S1_j"), "reduce0<int>");
  EXPECT_EQ(name_expression_of_symbol("_Z7add_oneIfEvPT_PKS0_j"), "add_one<float>");
  EXPECT_EQ(name_expression_of_symbol("_ZN2ns6kernelEPf"), "ns::kernel");
  EXPECT_EQ(name_expression_of_symbol("_ZN4vllm18act_and_mul_kernelIfXadL_ZNS_11silu_kernelIfEET_RKS2_EELb1EEEvPS2_PS3_i"),
            "vllm::act_and_mul_kernel<float, &vllm::silu_kernel<float>, true>");
  EXPECT_EQ(name_expression_of_symbol("_Znot_a_symbol"), "");
}

TEST(KernelFileCompile, NamesIncludeDirsForAMissingHeader) {
  const std::string nvrtc = "k.cu(3): catastrophic error: cannot open source file \"common.h\"";
  EXPECT_TRUE(contains(explain_missing_headers(nvrtc), "common.h is not on the include path: add the folder that holds it to the manifest's \"include_dirs\""));
  EXPECT_TRUE(contains(explain_missing_headers("k.hip:2:10: fatal error: 'util.hpp' file not found"), "util.hpp is not on the include path"));
  EXPECT_EQ(explain_missing_headers("k.cu(4): error: identifier \"x\" is undefined"), "k.cu(4): error: identifier \"x\" is undefined");
}

TEST(KernelFileCompile, CompilesTheDevicePartAndFindsSymbolEntries) {
  CompileRequest seen;
  auto fake = [&](const CompileRequest& q) {
    seen = q;
    CompileOutput out;
    out.ok = true;
    for (const std::string& e : q.entries) out.symbols[e] = "sym:" + e;
    return out;
  };
  const CompileRequest q{kProgram, "/tmp/hk_device_part_test.cu", {}, {"_Z5scalePfPKf5Shape", "scale"}};
  const CompileOutput out = compile_kernel_file(fake, q, "cuda");
  EXPECT_FALSE(contains(seen.source, "int main"));
  EXPECT_EQ(seen.entries, (std::vector<std::string>{"scale", "scale"}));
  EXPECT_EQ(out.symbols.at("_Z5scalePfPKf5Shape"), "sym:scale");
}

}  // namespace
}  // namespace hk
