// NVRTC, loaded with dlopen from the CUDA toolkit: compiles for any sm_XX with no GPU present.
#include <cstdlib>
#include <fmt/format.h>
#include <nvrtc.h>

#include "compiler.h"
#include "dynlib.h"
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
  static constexpr const char* kCreateName = "nvrtcCreateProgram";
  static constexpr const char* kCodeSizeName = "nvrtcGetCUBINSize";
  static constexpr const char* kCodeName = "nvrtcGetCUBIN";
  Result (*version)(int*, int*) = nullptr;
  const char* (*error_string)(Result) = nullptr;
  Result (*create)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  Result (*compile)(Program, int, const char* const*) = nullptr;
  Result (*destroy)(Program*) = nullptr;
  Result (*log_size)(Program, size_t*) = nullptr;
  Result (*log)(Program, char*) = nullptr;
  Result (*code_size)(Program, size_t*) = nullptr;
  Result (*code)(Program, char*) = nullptr;
};

class NvrtcCompiler final : public Compiler {
 public:
  explicit NvrtcCompiler(std::string arch) : arch_(std::move(arch)), lib_(DynLib::open(nvrtc_candidates())) {
    api_.version = lib_->get<decltype(api_.version)>("nvrtcVersion");
    api_.error_string = lib_->get<decltype(api_.error_string)>("nvrtcGetErrorString");
    api_.create = lib_->get<decltype(api_.create)>("nvrtcCreateProgram");
    api_.compile = lib_->get<decltype(api_.compile)>("nvrtcCompileProgram");
    api_.destroy = lib_->get<decltype(api_.destroy)>("nvrtcDestroyProgram");
    api_.log_size = lib_->get<decltype(api_.log_size)>("nvrtcGetProgramLogSize");
    api_.log = lib_->get<decltype(api_.log)>("nvrtcGetProgramLog");
    api_.code_size = lib_->get<decltype(api_.code_size)>("nvrtcGetCUBINSize");
    api_.code = lib_->get<decltype(api_.code)>("nvrtcGetCUBIN");
    int major = 0, minor = 0;
    if (const nvrtcResult r = api_.version(&major, &minor); r != NVRTC_SUCCESS)
      throw BackendUnavailable(std::string("nvrtcVersion failed: ") + api_.error_string(r));
    version_ = fmt::format("NVRTC {}.{}", major, minor);
  }

  std::string version() const override { return version_; }

  CompileOutput compile(const std::string& source, const std::string& source_name, const std::vector<std::string>& options) override {
    return rtc_compile(api_, base_compile_options("cuda", arch_), source, source_name, options);
  }

 private:
  std::string arch_;
  std::unique_ptr<DynLib> lib_;
  NvrtcApi api_;
  std::string version_;
};

}  // namespace

std::unique_ptr<Compiler> open_nvrtc_compiler(const std::string& arch) { return std::make_unique<NvrtcCompiler>(arch); }

}  // namespace hk
