#include "hiprtc_options.h"

namespace hk::hip_double {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The macro a -D option defines is the host compile's own backend macro's counterpart.
bool defines_gpu_backend(const std::string& macro) { return macro.substr(0, macro.find('=')) == "HK_BACKEND_HIP"; }

}  // namespace

HostCompileOptions host_compile_options(const std::vector<std::string>& in) {
  HostCompileOptions out;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& o = in[i];
    for (const char* arch : {"--offload-arch=", "--gpu-architecture="}) {
      if (starts_with(o, arch)) {
        const std::string target = o.substr(std::string(arch).size());
        out.arch = target.substr(0, target.find(':'));
      }
    }
    // Options whose value is the next argument.
    if ((o == "-D" || o == "-U" || o == "-I" || o == "-isystem" || o == "-include") && i + 1 < in.size()) {
      if (!(o == "-D" && defines_gpu_backend(in[i + 1]))) out.options.insert(out.options.end(), {o, in[i + 1]});
      ++i;
      continue;
    }
    if (starts_with(o, "-D") && defines_gpu_backend(o.substr(2))) continue;
    if (starts_with(o, "-D") || starts_with(o, "-U") || starts_with(o, "-I") || starts_with(o, "-isystem") || starts_with(o, "-std="))
      out.options.push_back(o);
  }
  return out;
}

}  // namespace hk::hip_double
