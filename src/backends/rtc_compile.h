// The compile step NVRTC and hipRTC share, written once over a vendor's entry points: a program
// from the source and the prelude headers, the base options then the caller's, the log and the
// code. Api (nvrtc_compiler.cpp, hiprtc_compiler.cpp) names the types and the functions.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "backend.h"

namespace hk {

template <class Api>
CompileOutput rtc_compile(const Api& api, const std::vector<std::string>& base_options, const std::string& source,
                          const std::string& source_name, const std::vector<std::string>& options) {
  std::vector<const char*> header_src, header_names;
  for (const auto& [name, text] : prelude_headers()) {
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
  auto r = api.create(&prog, source.c_str(), source_name.c_str(), static_cast<int>(header_src.size()), header_src.data(),
                      header_names.data());
  if (r != Api::kSuccess) return failed(Api::kCreateName, r);
  std::vector<std::string> all = base_options;
  all.insert(all.end(), options.begin(), options.end());
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
    out.ok = true;
  } else if (out.log.empty()) {
    out.log = api.error_string(r);
  }
  api.destroy(&prog);
  return out;
}

}  // namespace hk
