#include "compiler.h"

#include <fmt/format.h>

namespace hk {

// Each defined in its file under backends/, built when its toolkit's headers were found.
std::unique_ptr<Compiler> open_host_compiler(const HostOptions& host);
#ifdef HKCHECK_WITH_CUDA
std::unique_ptr<Compiler> open_nvrtc_compiler(const std::string& arch);
#endif
#ifdef HKCHECK_WITH_HIP
std::unique_ptr<Compiler> open_hiprtc_compiler(const std::string& arch);
#endif

std::unique_ptr<Compiler> open_compiler(const std::string& backend, const std::string& arch, const HostOptions& host) {
  if (backend == "host") return open_host_compiler(host);
#ifdef HKCHECK_WITH_CUDA
  if (backend == "cuda") return open_nvrtc_compiler(arch);
#endif
#ifdef HKCHECK_WITH_HIP
  if (backend == "hip") return open_hiprtc_compiler(arch);
#endif
  throw BackendUnavailable(fmt::format("no compiler for backend '{}' (target {}) is built into this hkcheck", backend, arch));
}

}  // namespace hk
