// hipRTC, loaded with dlopen (hiprtc_library.h): in libhiprtc.so since ROCm 6, inside
// libamdhip64.so before. It compiles for a named gfx target with no AMD GPU present (Debian's
// 5.2.3 does gfx90a; it aborts the process for gfx940/gfx942, so callers that must survive that
// compile in a child process).
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hiprtc.h>

#include <algorithm>
#include <regex>

#include "compile/hiprtc_hints.h"
#include "backends/hiprtc_library.h"
#include "backends/rtc_compile.h"

namespace hk {
namespace {

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
  // Headers handed over in memory sit in comgr's temporary folder: name them as hkcheck's.
  static const std::string kIncludes = "/include/";
  for (size_t at = log.find("/tmp/comgr-"); at != std::string::npos; at = log.find("/tmp/comgr-", at)) {
    const size_t inc = log.find(kIncludes, at);
    if (inc == std::string::npos || log.find_first_of(" \n", at) < inc) break;
    log.replace(at, inc + kIncludes.size() - at, "hkcheck's ");
  }
  // A source named with its folder ("kernels/x.hip") sits in comgr's input folder: drop that.
  static const std::regex input_copy(R"(/tmp/comgr-[^/\s]+/input/)");
  return std::regex_replace(log, input_copy, "");
}

struct HiprtcApi {
  using Program = hiprtcProgram;
  using Result = hiprtcResult;
  static constexpr Result kSuccess = HIPRTC_SUCCESS;
  static constexpr const char* kBackend = "hip";
  static constexpr const char* kLabel = "hipRTC";
  static constexpr const char *kVersion = "hiprtcVersion", *kErrorString = "hiprtcGetErrorString", *kCreate = "hiprtcCreateProgram",
                              *kCompile = "hiprtcCompileProgram", *kDestroy = "hiprtcDestroyProgram", *kLogSize = "hiprtcGetProgramLogSize",
                              *kLog = "hiprtcGetProgramLog", *kCodeSize = "hiprtcGetCodeSize", *kCode = "hiprtcGetCode";
  using VersionFn = Result (*)(int*, int*);
  using ErrorStringFn = const char* (*)(Result);
  using CreateFn = Result (*)(Program*, const char*, const char*, int, const char**, const char**);
  using CompileFn = Result (*)(Program, int, const char**);
  using DestroyFn = Result (*)(Program*);
  using SizeFn = Result (*)(Program, size_t*);
  using DataFn = Result (*)(Program, char*);
  using AddNameFn = Result (*)(Program, const char*);
  using LoweredNameFn = Result (*)(Program, const char*, const char**);
  static constexpr const char *kAddName = "hiprtcAddNameExpression", *kLoweredName = "hiprtcGetLoweredName";
  static std::string tidy_log(const std::string& log, const std::string& source_name) { return name_the_source(log, source_name); }
};

// hipRTC over the shared run-time compiler, with what depends on which hipRTC it is: its name,
// ROCm 5's stand-in headers, the HIP headers newer ones lack, and the include folders of the
// no-builtin-header mode.
class HiprtcCompiler final : public Compiler {
 public:
  HiprtcCompiler(const std::string& arch, HiprtcLibrary lib) : lib_(std::move(lib)) {
    rtc_ = std::make_unique<RtcCompiler<HiprtcApi>>(arch, std::move(lib_.lib));
    // Without comgr's version nothing in the label tells two builds apart: add hiprtcVersion's
    // answer, which keys the compile cache (the test double puts its prelude's fingerprint there).
    if (!lib_.comgr) lib_.label += " [" + rtc_->version() + "]";
    // ROCm 5's hipRTC: stand-ins for <hip/hip_bf16.h>, <climits>, ... (src/prelude/hiprtc5/), and
    // HIP_DYNAMIC_SHARED, which its built-in hip_runtime.h leaves out.
    // HIP's old index spellings (hipBlockDim_x, ...), gone from ROCm 7's headers and from the
    // built-in ones of Debian's ROCm 5, for every hipRTC (hk_hip_old_spellings.h).
    std::vector<std::string> pre_includes = {"-include", "hk_hip_old_spellings.h"};
    if (lib_.rocm5) {
      rtc_->set_header_set("hip5");
      pre_includes.insert(pre_includes.begin(), {"-include", "hk_hiprtc5.h"});
    }
    rtc_->set_extra_options(pre_includes);
  }

  std::string version() const override { return lib_.label; }

  CompileOutput compile(const CompileRequest& q) override {
    CompileOutput out = compile_in_mode(q);
    if (!out.ok) out.log = explain_hiprtc_errors(out.log, lib_.rocm5);
    return out;
  }

 private:
  CompileOutput compile_in_mode(const CompileRequest& q) {
    if (std::find(q.options.begin(), q.options.end(), kNoBuiltinHeader) == q.options.end()) {
      if (lib_.rocm5 || lib_.hip_include.empty()) return rtc_->compile(q);
      // hipRTC 6 and later build in hip_runtime.h and hip_fp16.h but not <hip/hip_bf16.h> and
      // the rest (measured with Debian's 7.2.4): those come from the HIP headers of the same
      // version, searched after everything else so that the built-in ones still win. Only in
      // this mode: a folder given as -idirafter and -I is searched as -idirafter, after the
      // system's own HIP headers.
      CompileRequest with = q;
      with.options.insert(with.options.end(), {"-idirafter", lib_.hip_include});
      return rtc_->compile(with);
    }
    CompileOutput refused;
    if (lib_.rocm5) {
      refused.log = lib_.label + " has no " + kNoBuiltinHeader + " mode (hipRTC 6 and later have it; --hiprtc-root names one)";
      return refused;
    }
    CompileRequest with = q;
    try {
      const std::vector<std::string> inc = no_builtin_header_includes(lib_.prefix, lib_.llvm_major);
      with.options.insert(with.options.end(), inc.begin(), inc.end());
    } catch (const std::exception& e) {
      refused.log = e.what();
      return refused;
    }
    // Without the built-in header nothing declares threadIdx, __global__ or HIP's types before
    // hkcheck.h: the HIP headers of this hipRTC do.
    with.options.insert(with.options.end(), {"-include", "hip/hip_runtime.h"});
    return rtc_->compile(with);
  }

  static constexpr const char* kNoBuiltinHeader = "--hiprtc-no-builtin-header";
  HiprtcLibrary lib_;
  std::unique_ptr<RtcCompiler<HiprtcApi>> rtc_;
};

}  // namespace

std::unique_ptr<Compiler> open_hiprtc_compiler(const std::string& arch, const std::string& root) {
  return std::make_unique<HiprtcCompiler>(arch, open_hiprtc_library(root));
}

}  // namespace hk
