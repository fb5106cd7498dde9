// NVRTC, loaded with dlopen from the CUDA toolkit: compiles for any sm_XX with no GPU present.
#include <cstdlib>
#include <nvrtc.h>

#include "rtc_compile.h"

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
  static std::string tidy_log(const std::string& log, const std::string&) { return log; }  // it names the source already
};

}  // namespace

std::unique_ptr<Compiler> open_nvrtc_compiler(const std::string& arch) {
  return std::make_unique<RtcCompiler<NvrtcApi>>(arch, DynLib::open(nvrtc_candidates()));
}

}  // namespace hk
