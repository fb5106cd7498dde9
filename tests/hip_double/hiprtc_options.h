// hipRTC's options as the double's host compile takes them. What decides what the kernel is
// stays: macros (-D, -U), include folders (-I, -isystem), forced includes (-include) and the
// language (-std). What only a GPU compile means goes: the target (--offload-arch, which picks
// the host profile instead), optimisation and code generation flags (-O, -f..., -m...), hipRTC's
// own (--hiprtc-...), and HK_BACKEND_HIP, since the host compile defines HK_BACKEND_HOST and
// hkcheck.h takes exactly one backend macro.
#pragma once

#include <string>
#include <vector>

namespace hk::hip_double {

struct HostCompileOptions {
  std::string arch;                  // --offload-arch's target without its feature flags; "" when absent
  std::vector<std::string> options;  // for the host compile
};

HostCompileOptions host_compile_options(const std::vector<std::string>& hiprtc_options);

}  // namespace hk::hip_double
