#include "platform/compiler.h"

#include <fmt/format.h>

namespace hk {

// Each defined in its file under backends/, built when its toolkit's headers were found.
std::unique_ptr<Compiler> open_host_compiler(const HostOptions& host);
#ifdef HKCHECK_WITH_CUDA
std::unique_ptr<Compiler> open_nvrtc_compiler(const std::string& arch);
#endif
#ifdef HKCHECK_WITH_HIP
std::unique_ptr<Compiler> open_hiprtc_compiler(const std::string& arch, const std::string& root);
#endif

std::unique_ptr<Compiler> open_compiler(const std::string& backend, const std::string& arch, const HostOptions& host,
                                        const std::string& hiprtc_root) {
  if (backend == "host") return open_host_compiler(host);
#ifdef HKCHECK_WITH_CUDA
  if (backend == "cuda") return open_nvrtc_compiler(arch);
#endif
#ifdef HKCHECK_WITH_HIP
  if (backend == "hip") return open_hiprtc_compiler(arch, hiprtc_root);
#endif
  (void)hiprtc_root;  // unused when hipRTC is not built in
  throw BackendUnavailable(fmt::format("no compiler for backend '{}' (target {}) is built into this hkcheck", backend, arch));
}

}  // namespace hk
