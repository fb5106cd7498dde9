// hipRTC, loaded with dlopen: in libhiprtc.so since ROCm 6, inside libamdhip64.so before. It
// compiles for a named gfx target with no AMD GPU present (Debian's 5.2.3 does gfx90a; it aborts
// the process for gfx940/gfx942, so callers that must survive that compile in a child process).
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <fmt/format.h>
#include <hip/hiprtc.h>

#include "compiler.h"
#include "dynlib.h"
#include "rtc_compile.h"

namespace hk {
namespace {

struct HiprtcApi {
  using Program = hiprtcProgram;
  using Result = hiprtcResult;
  static constexpr Result kSuccess = HIPRTC_SUCCESS;
  static constexpr const char* kCreateName = "hiprtcCreateProgram";
  static constexpr const char* kCodeSizeName = "hiprtcGetCodeSize";
  static constexpr const char* kCodeName = "hiprtcGetCode";
  Result (*version)(int*, int*) = nullptr;
  const char* (*error_string)(Result) = nullptr;
  Result (*create)(Program*, const char*, const char*, int, const char**, const char**) = nullptr;
  Result (*compile)(Program, int, const char**) = nullptr;
  Result (*destroy)(Program*) = nullptr;
  Result (*log_size)(Program, size_t*) = nullptr;
  Result (*log)(Program, char*) = nullptr;
  Result (*code_size)(Program, size_t*) = nullptr;
  Result (*code)(Program, char*) = nullptr;
};

std::unique_ptr<DynLib> open_hiprtc_library() {
  try {
    return DynLib::open({"libhiprtc.so", "libhiprtc.so.6", "/opt/rocm/lib/libhiprtc.so"});
  } catch (const BackendUnavailable&) {  // ROCm 5: hipRTC is part of libamdhip64
    return DynLib::open({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"});
  }
}

// hipRTC (through comgr) compiles a temporary copy and its messages name that copy,
// "/tmp/comgr-xxxx/input/CompileSource:2:35: error: ...": put the kernel's own file there.
std::string name_the_source(std::string log, const std::string& source_name) {
  static const std::string kCopy = "CompileSource";
  for (size_t at = log.find(kCopy); at != std::string::npos; at = log.find(kCopy, at)) {
    size_t start = at;
    while (start > 0 && log[start - 1] != '\n' && log[start - 1] != ' ' && log[start - 1] != '\'') --start;
    log.replace(start, at + kCopy.size() - start, source_name);
    at = start + source_name.size();
  }
  return log;
}

class HiprtcCompiler final : public Compiler {
 public:
  explicit HiprtcCompiler(std::string arch) : arch_(std::move(arch)), lib_(open_hiprtc_library()) {
    api_.version = lib_->get<decltype(api_.version)>("hiprtcVersion");
    api_.error_string = lib_->get<decltype(api_.error_string)>("hiprtcGetErrorString");
    api_.create = lib_->get<decltype(api_.create)>("hiprtcCreateProgram");
    api_.compile = lib_->get<decltype(api_.compile)>("hiprtcCompileProgram");
    api_.destroy = lib_->get<decltype(api_.destroy)>("hiprtcDestroyProgram");
    api_.log_size = lib_->get<decltype(api_.log_size)>("hiprtcGetProgramLogSize");
    api_.log = lib_->get<decltype(api_.log)>("hiprtcGetProgramLog");
    api_.code_size = lib_->get<decltype(api_.code_size)>("hiprtcGetCodeSize");
    api_.code = lib_->get<decltype(api_.code)>("hiprtcGetCode");
    int major = 0, minor = 0;
    if (const hiprtcResult r = api_.version(&major, &minor); r != HIPRTC_SUCCESS)
      throw BackendUnavailable(std::string("hiprtcVersion failed: ") + api_.error_string(r));
    version_ = fmt::format("hipRTC {}.{}", major, minor);
  }

  std::string version() const override { return version_; }

  CompileOutput compile(const std::string& source, const std::string& source_name, const std::vector<std::string>& options) override {
    CompileOutput out = rtc_compile(api_, base_compile_options("hip", arch_), source, source_name, options);
    out.log = name_the_source(out.log, source_name);
    return out;
  }

 private:
  std::string arch_;
  std::unique_ptr<DynLib> lib_;
  HiprtcApi api_;
  std::string version_;
};

}  // namespace

std::unique_ptr<Compiler> open_hiprtc_compiler(const std::string& arch) { return std::make_unique<HiprtcCompiler>(arch); }

}  // namespace hk
