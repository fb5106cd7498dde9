// The device part of a kernel file with host code: kernels and what they use kept byte for byte,
// host functions, host globals and host-only includes blanked, every line where it was.
#include "compile/device_part.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>

#include "compile/device_part_headers.h"
#include "compile/entry_symbols.h"
#include "compile/hiprtc_hints.h"
#include "compile/kernel_file_compile.h"

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

// A functor passed to a call on a library type the parse does not find (cub's, whose headers are
// the device compiler's) is no reference to clang; its name in the kernel still keeps it. A host
// function of the same file is not kept by its name.
TEST(DevicePart, KeepsTypesNamedInCallsTheParseCouldNotResolve) {
  const char* src = R"(#include <not_on_this_machine/scan.cuh>
struct Larger { __device__ int operator()(int a, int b) const { return a < b ? b : a; } };
struct HostConfig { int n; };
int largest(int a, int b) { return a < b ? b : a; }
template <int Lanes> __global__ void scan(int* out) {
  using Scan = lib::WarpScan<int, Lanes>;
  __shared__ typename Scan::TempStorage tmp;
  int r;
  Scan(tmp).ExclusiveScan(out[threadIdx.x], r, 3, Larger());
  out[threadIdx.x] = r;
}
int main() { HostConfig c{largest(1, 2)}; return c.n; }
)";
  const DevicePart p = device_part(src, "/tmp/hk_device_part_unresolved.cu", {}, false);
  EXPECT_TRUE(contains(p.source, "struct Larger")) << p.source;
  for (const char* gone : {"HostConfig", "int largest", "int main"}) EXPECT_FALSE(contains(p.source, gone)) << gone;
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

TEST(DevicePart, KeepsOnlyTheKernelsItIsRootedAt) {
  const std::string src =
      "__device__ float half_of(float x) { return x * 0.5f; }\n"
      "__device__ unsigned lane() { unsigned l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); return l; }\n"
      "__global__ void halve(float* y) { y[0] = half_of(y[0]); }\n"
      "__global__ void lanes(unsigned* y) { y[0] = lane(); }\n";
  const DevicePart whole = device_part(src, "/tmp/hk_device_part_roots.cu", {}, false);
  EXPECT_FALSE(whole.changed()) << "no host code: compiled as written";
  const DevicePart p = device_part(src, "/tmp/hk_device_part_roots.cu", {}, false, {"halve"});
  ASSERT_TRUE(p.changed());
  EXPECT_TRUE(contains(p.source, "__global__ void halve"));
  EXPECT_TRUE(contains(p.source, "half_of(float x)"));
  EXPECT_FALSE(contains(p.source, "lanes"));
  EXPECT_FALSE(contains(p.source, "asm"));
}

// llm.c's shape: the kernel file includes a project header that includes another; both hold
// device helpers beside host functions, a host global and host-only includes.
TEST(DevicePartHeaders, PutsInTheDevicePartOfProjectHeaders) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hk_device_part_headers";
  std::filesystem::create_directories(dir / "llmc");
  std::ofstream(dir / "llmc" / "common.cuh") << "#pragma once\n#include <cublas_v2.h>\nextern int device_count;\n"
                                                "__device__ float twice(float x) { return x + x; }\n"
                                                "struct Row { int cols; };\nvoid check(int e) { if (e) device_count = 0; }\n";
  std::ofstream(dir / "llmc" / "ops.cuh") << "#pragma once\n#include \"common.cuh\"\n#include \"plain.cuh\"\n"
                                             "__device__ float quad(float x) { return twice(twice(x)); }\n"
                                             "void launch_quad(float* y) { check(0); }\n";
  std::ofstream(dir / "llmc" / "plain.cuh") << "#pragma once\n__device__ float one() { return 1.f; }\n";
  const std::string src = "#include \"llmc/ops.cuh\"\n__global__ void k(float* y, Row r) { y[0] = quad(y[0]) + one() + r.cols; }\n"
                          "int main() { launch_quad(nullptr); }\n";
  const std::string path = (dir / "k.cu").string();
  DevicePart p = device_part(src, path, {"-I" + dir.string()}, false);
  put_in_project_headers(p, path, {"-I" + dir.string()}, false);
  // Row and plain.cuh are used by the kernel file only, not by the headers' own device code.
  for (const char* kept : {"__device__ float twice", "__device__ float quad", "struct Row { int cols; };", "#include \"plain.cuh\"",
                           "__global__ void k"})
    EXPECT_TRUE(contains(p.source, kept)) << kept;
  for (const char* gone : {"cublas_v2.h", "extern int device_count", "void check", "launch_quad(float", "int main", "#pragma once",
                           "#include \"llmc/ops.cuh\"", "#include \"common.cuh\""})
    EXPECT_FALSE(contains(p.source, gone)) << gone;
  // Messages still name each file and line: the kernel is back on line 2 of k.cu.
  EXPECT_TRUE(contains(p.source, "#line 1 \"" + (dir / "llmc" / "ops.cuh").string() + "\"\n"));
  EXPECT_TRUE(contains(p.source, "#line 2 \"" + path + "\"\n__global__ void k"));
  EXPECT_TRUE(std::any_of(p.dropped.begin(), p.dropped.end(), [](const std::string& d) { return contains(d, "check") && contains(d, "llmc/ops.cuh"); }));
  EXPECT_EQ(p.include_dirs.front(), (dir / "llmc").string());
}

// Under root the compile reads as its own user (compile_user.h): a header that user may not read
// stays an #include, refused by the compiler, and its text is never put into the source.
TEST(DevicePartHeaders, LeavesAHeaderOnlyRootMayReadToTheCompiler) {
  if (geteuid() != 0) GTEST_SKIP() << "compiles leave root only when hkcheck runs as root";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hk_device_part_headers_private";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "secret.cuh") << "#pragma once\n__device__ float one() { return 1.f; }\nvoid host_only() {}\n// XYZZY-token\n";
  std::filesystem::permissions(dir / "secret.cuh", std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::replace);
  const std::string src = "#include \"secret.cuh\"\n__global__ void k(float* y) { y[0] = one(); }\nint main() {}\n";
  DevicePart p = device_part(src, (dir / "k.cu").string(), {}, false);
  put_in_project_headers(p, (dir / "k.cu").string(), {}, false);
  EXPECT_TRUE(contains(p.source, "#include \"secret.cuh\""));
  EXPECT_FALSE(contains(p.source, "XYZZY"));
}

TEST(DevicePartHeaders, LeavesHeadersOutsideTheProjectAndWithoutHostCode) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hk_device_part_headers_plain";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "plain.cuh") << "#pragma once\n__device__ float one() { return 1.f; }\n";
  const std::string src = "#include \"plain.cuh\"\n__global__ void k(float* y) { y[0] = one(); }\nint main() {}\n";
  DevicePart p = device_part(src, (dir / "k.cu").string(), {}, false);
  const std::string before = p.source;
  put_in_project_headers(p, (dir / "k.cu").string(), {}, false);
  EXPECT_EQ(p.source, before);
  EXPECT_TRUE(p.include_dirs.empty());
}

// A kernel that does not compile (an intrinsic the target lacks) fails its own entry only.
TEST(KernelFileCompile, AKernelThatDoesNotCompileFailsItsEntryOnly) {
  const std::string src =
      "__global__ void halve(float* y) { y[0] *= 0.5f; }\n"
      "__global__ void lanes(unsigned* y) { unsigned l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); y[0] = l; }\n"
      "__global__ void unnamed(unsigned* y) { asm(\"trap;\"); }\n";
  std::vector<CompileRequest> seen;
  auto no_asm = [&](const CompileRequest& q) {
    seen.push_back(q);
    CompileOutput out;
    const size_t at = q.source.find("asm(");
    out.ok = at == std::string::npos;
    if (!out.ok) out.log = fmt::format("/tmp/hk_apart.cu:{}:1: error: inline assembly cannot run here",
                                       std::count(q.source.begin(), q.source.begin() + at, '\n') + 1);
    for (const std::string& e : q.entries) out.symbols[e] = "sym:" + e;
    return out;
  };
  const CompileOutput one = compile_kernel_file(no_asm, {src, "/tmp/hk_apart.cu", {}, {"halve"}}, "host");
  EXPECT_TRUE(one.ok) << "a kernel no manifest names is left out when it does not compile";
  EXPECT_EQ(seen.size(), 2u);
  seen.clear();
  const CompileOutput two = compile_kernel_file(no_asm, {src, "/tmp/hk_apart.cu", {}, {"halve", "lanes"}}, "host");
  ASSERT_TRUE(two.ok);
  EXPECT_EQ(two.symbols.count("halve"), 1u);
  ASSERT_EQ(two.entry_errors.count("lanes"), 1u);
  EXPECT_TRUE(contains(two.entry_errors.at("lanes"), "lanes does not compile: /tmp/hk_apart.cu(2): inline assembly")) << two.entry_errors.at("lanes");
  EXPECT_EQ(two.entry_errors.count("halve"), 0u);
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
  // Found but not readable (a compile user's): the folder is on the path already.
  const std::string denied = "k.cu(1): catastrophic error: cannot open source file \"/srv/secret.h\": Permission denied";
  EXPECT_EQ(explain_missing_headers(denied), denied);
}

// The other vendor's own header: the way on is a file per vendor, not an include folder.
TEST(KernelFileCompile, NamesAPerVendorSourceForTheOtherVendorsHeader) {
  const std::string hiprtc = "k.cu:6:10: fatal error: 'cuda_bf16.h' file not found";
  const std::string told = explain_missing_headers(hiprtc, "hip");
  EXPECT_TRUE(contains(told, "cuda_bf16.h is CUDA's own header, so this file is CUDA source")) << told;
  EXPECT_TRUE(contains(told, "\"source\": {\"cuda\": \"k.cu\", \"hip\": \"k.hip\"}")) << told;
  EXPECT_FALSE(contains(told, "include_dirs")) << told;
  const std::string nvrtc = explain_missing_headers("k.hip(7): catastrophic error: cannot open source file \"hip/hip_runtime.h\"", "cuda");
  EXPECT_TRUE(contains(nvrtc, "hip/hip_runtime.h is HIP's own header, so this file is HIP source")) << nvrtc;
  EXPECT_TRUE(contains(nvrtc, "{\"hip\": ...} alone to run it on HIP only")) << nvrtc;
  // Under its own vendor's compiler a missing CUDA header is an include folder's matter.
  EXPECT_TRUE(contains(explain_missing_headers("k.cu(3): catastrophic error: cannot open source file \"cute/tensor.hpp\"", "cuda"), "include_dirs"));
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
