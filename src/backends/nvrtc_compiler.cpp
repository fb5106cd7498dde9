// NVRTC, loaded with dlopen from the CUDA toolkit: compiles for any sm_XX with no GPU present.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <nvrtc.h>

#include "backends/rtc_compile.h"

namespace hk {
namespace {

std::vector<std::string> nvrtc_candidates() {
  std::vector<std::string> names = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
  std::vector<std::string> dirs;
  if (const char* p = std::getenv("CUDA_PATH")) dirs.push_back(std::string(p) + "/lib64/");
  if (const char* p = std::getenv("CUDA_HOME")) dirs.push_back(std::string(p) + "/lib64/");
  dirs.push_back("/usr/local/cuda/lib64/");
  std::vector<std::string> all = names;
  for (const auto& d : dirs)
    for (const auto& n : names) all.push_back(d + n);
  return all;
}

struct NvrtcApi {
  using Program = nvrtcProgram;
  using Result = nvrtcResult;
  static constexpr Result kSuccess = NVRTC_SUCCESS;
  static constexpr const char* kBackend = "cuda";
  static constexpr const char* kLabel = "NVRTC";
  static constexpr const char *kVersion = "nvrtcVersion", *kErrorString = "nvrtcGetErrorString", *kCreate = "nvrtcCreateProgram",
                              *kCompile = "nvrtcCompileProgram", *kDestroy = "nvrtcDestroyProgram", *kLogSize = "nvrtcGetProgramLogSize",
                              *kLog = "nvrtcGetProgramLog", *kCodeSize = "nvrtcGetCUBINSize", *kCode = "nvrtcGetCUBIN";
  using VersionFn = Result (*)(int*, int*);
  using ErrorStringFn = const char* (*)(Result);
  using CreateFn = Result (*)(Program*, const char*, const char*, int, const char* const*, const char* const*);
  using CompileFn = Result (*)(Program, int, const char* const*);
  using DestroyFn = Result (*)(Program*);
  using SizeFn = Result (*)(Program, size_t*);
  using DataFn = Result (*)(Program, char*);
  using AddNameFn = Result (*)(Program, const char*);
  using LoweredNameFn = Result (*)(Program, const char*, const char**);
  static constexpr const char *kAddName = "nvrtcAddNameExpression", *kLoweredName = "nvrtcGetLoweredName";
  static std::string tidy_log(const std::string& log, const std::string&) { return log; }  // it names the source already
};

// The toolkit's header folders, so that kernels include <cuda_bf16.h>, <cooperative_groups.h>
// or <cub/block/block_reduce.cuh> as they do under nvcc: those of the toolkit this NVRTC came
// from, else $CUDA_PATH, $CUDA_HOME, /usr/local/cuda. CUDA 13 keeps cub and libcu++ in cccl/.
std::vector<std::string> toolkit_include_options(const DynLib& lib) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  Dl_info info{};
  if (dladdr(lib.symbol(NvrtcApi::kVersion), &info) && info.dli_fname) {
    const fs::path dir = fs::path(info.dli_fname).parent_path();
    roots.push_back(dir / ".." / "include");         // <toolkit>/lib64
    roots.push_back(dir / ".." / ".." / "include");  // <toolkit>/targets/<triple>/lib
  }
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* p = std::getenv(var); p && *p) roots.push_back(fs::path(p) / "include");
  roots.push_back("/usr/local/cuda/include");
  std::error_code ec;
  for (const fs::path& r : roots) {
    if (!fs::exists(r / "cuda_fp16.h", ec)) continue;
    const fs::path inc = fs::weakly_canonical(r, ec);
    std::vector<std::string> opts = {"-I" + inc.string()};
    if (fs::is_directory(inc / "cccl", ec)) opts.push_back("-I" + (inc / "cccl").string());
    return opts;
  }
  return {};  // kernels that include no toolkit header still compile
}

}  // namespace

std::unique_ptr<Compiler> open_nvrtc_compiler(const std::string& arch) {
  auto lib = DynLib::open(nvrtc_candidates());
  const std::vector<std::string> includes = toolkit_include_options(*lib);
  auto c = std::make_unique<RtcCompiler<NvrtcApi>>(arch, std::move(lib));
  c->set_extra_options(includes);
  return c;
}

}  // namespace hk
