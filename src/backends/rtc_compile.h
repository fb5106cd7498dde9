// The run-time compiler NVRTC and hipRTC share, written once over a vendor's entry points: a
// program from the source and the prelude headers, the base options then the caller's, the log
// and the code. Api (nvrtc_compiler.cpp, hiprtc_compiler.cpp) names the types, the symbols, the
// backend and how to tidy the log.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <memory>

#include "platform/backend.h"
#include "platform/compiler.h"
#include "backends/rtc_compile_user.h"
#include "platform/dynlib.h"

namespace hk {

template <class Api>
CompileOutput rtc_compile(const Api& api, const std::vector<std::string>& base_options, const std::string& header_set,
                          const CompileRequest& q) {
  std::vector<const char*> header_src, header_names;
  for (const auto& [name, text] : prelude_headers(header_set)) {
    header_names.push_back(name.c_str());
    header_src.push_back(text.c_str());
  }
  CompileOutput out;
  auto failed = [&](const char* call, typename Api::Result r) {
    out.ok = false;
    out.log += std::string(out.log.empty() ? "" : "\n") + call + " failed: " + api.error_string(r);
    return out;
  };
  typename Api::Program prog{};
  auto r = api.create(&prog, q.source.c_str(), q.source_name.c_str(), static_cast<int>(header_src.size()), header_src.data(),
                      header_names.data());
  if (r != Api::kSuccess) return failed(Api::kCreateName, r);
  // Every entry goes through a name expression, so C++ kernels and templates are found by the
  // name the author wrote, and extern "C" names come back as they are.
  for (const std::string& e : q.entries) {
    if (const auto e_r = api.add_name(prog, e.c_str()); e_r != Api::kSuccess) {
      api.destroy(&prog);
      return failed(Api::kAddNameName, e_r);
    }
  }
  std::vector<std::string> all = base_options;
  all.insert(all.end(), q.options.begin(), q.options.end());
  std::vector<const char*> argv;
  for (const auto& o : all) argv.push_back(o.c_str());
  r = api.compile(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  if (api.log_size(prog, &log_size) == Api::kSuccess && log_size > 1) {
    out.log.resize(log_size);
    api.log(prog, out.log.data());
    out.log.resize(strnlen(out.log.data(), log_size));
  }
  if (r == Api::kSuccess) {
    size_t size = 0;
    if (const auto e = api.code_size(prog, &size); e != Api::kSuccess) {
      api.destroy(&prog);
      return failed(Api::kCodeSizeName, e);
    }
    out.binary.resize(size);
    if (const auto e = api.code(prog, out.binary.data()); e != Api::kSuccess) {
      api.destroy(&prog);
      return failed(Api::kCodeName, e);
    }
    for (const std::string& e : q.entries) {
      const char* lowered = nullptr;
      if (api.lowered_name(prog, e.c_str(), &lowered) == Api::kSuccess && lowered) out.symbols[e] = lowered;
    }
    out.ok = true;
  } else if (out.log.empty()) {
    out.log = api.error_string(r);
  }
  api.destroy(&prog);
  return out;
}

// The functions of an Api, bound by name from its library.
template <class Api>
struct RtcFunctions {
  using Program = typename Api::Program;
  using Result = typename Api::Result;
  static constexpr Result kSuccess = Api::kSuccess;
  static constexpr const char* kCreateName = Api::kCreate;
  static constexpr const char* kCodeSizeName = Api::kCodeSize;
  static constexpr const char* kCodeName = Api::kCode;
  static constexpr const char* kAddNameName = Api::kAddName;
  static constexpr const char* kBackend = Api::kBackend;
  typename Api::VersionFn version;
  typename Api::ErrorStringFn error_string;
  typename Api::CreateFn create;
  typename Api::CompileFn compile;
  typename Api::DestroyFn destroy;
  typename Api::SizeFn log_size;
  typename Api::DataFn log;
  typename Api::SizeFn code_size;
  typename Api::DataFn code;
  typename Api::AddNameFn add_name;
  typename Api::LoweredNameFn lowered_name;

  explicit RtcFunctions(const DynLib& lib)
      : version(lib.get<typename Api::VersionFn>(Api::kVersion)),
        error_string(lib.get<typename Api::ErrorStringFn>(Api::kErrorString)),
        create(lib.get<typename Api::CreateFn>(Api::kCreate)),
        compile(lib.get<typename Api::CompileFn>(Api::kCompile)),
        destroy(lib.get<typename Api::DestroyFn>(Api::kDestroy)),
        log_size(lib.get<typename Api::SizeFn>(Api::kLogSize)),
        log(lib.get<typename Api::DataFn>(Api::kLog)),
        code_size(lib.get<typename Api::SizeFn>(Api::kCodeSize)),
        code(lib.get<typename Api::DataFn>(Api::kCode)),
        add_name(lib.get<typename Api::AddNameFn>(Api::kAddName)),
        lowered_name(lib.get<typename Api::LoweredNameFn>(Api::kLoweredName)) {}
};

template <class Api>
class RtcCompiler final : public Compiler {
 public:
  RtcCompiler(std::string arch, std::unique_ptr<DynLib> lib) : arch_(std::move(arch)), lib_(std::move(lib)), fns_(*lib_) {
    int major = 0, minor = 0;
    if (const auto r = fns_.version(&major, &minor); r != Api::kSuccess)
      throw BackendUnavailable(std::string(Api::kVersion) + " failed: " + fns_.error_string(r));
    version_ = fmt::format("{} {}.{}", Api::kLabel, major, minor);
  }

  std::string version() const override { return version_; }

  CompileOutput compile(const CompileRequest& q) override {
    std::vector<std::string> base = base_compile_options(Api::kBackend, arch_);
    base.insert(base.end(), extra_options_.begin(), extra_options_.end());
    CompileOutput out = compile_as_compile_user(
        base, q, [&](const std::vector<std::string>& options, const CompileRequest& r) { return rtc_compile(fns_, options, header_set_, r); });
    out.log = Api::tidy_log(out.log, q.source_name);
    return out;
  }

  // Options every compile gets after the base ones: the vendor's own header folders.
  void set_extra_options(std::vector<std::string> o) { extra_options_ = std::move(o); }
  // The prelude headers handed over in memory (prelude_headers): the backend's, unless this
  // compiler needs stand-ins of its own.
  void set_header_set(std::string s) { header_set_ = std::move(s); }

 private:
  std::string arch_;
  std::unique_ptr<DynLib> lib_;
  RtcFunctions<Api> fns_;
  std::string version_;
  std::vector<std::string> extra_options_;
  std::string header_set_ = Api::kBackend;
};

}  // namespace hk
