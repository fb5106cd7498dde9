// How the rows of platform/backend_table.h open: each backend's device and compiler (defined
// under backends/, built when its toolkit's headers were found), its base compile options and its
// prelude. Apart from the table, so that what only reads names (the manifest reader, its fuzz
// target) links no backend.
#include <fmt/format.h>

#include "platform/backend.h"
#include "platform/backend_table.h"
#include "platform/compiler.h"
#include "prelude_sources.h"

namespace hk {

// Each defined in its file under backends/, built when its toolkit's headers were found.
std::unique_ptr<Backend> open_host_backend(const HostOptions& opt);
std::unique_ptr<Compiler> open_host_compiler(const HostOptions& host);
#ifdef HKCHECK_WITH_CUDA
std::unique_ptr<Backend> open_cuda_backend(int device);
std::unique_ptr<Compiler> open_nvrtc_compiler(const std::string& arch);
#endif
#ifdef HKCHECK_WITH_HIP
std::unique_ptr<Backend> open_hip_backend(int device);
std::unique_ptr<Compiler> open_hiprtc_compiler(const std::string& arch, const std::string& root);
#endif

namespace {

#ifdef HKCHECK_WITH_CUDA
std::unique_ptr<Backend> cuda_device(int device, const HostOptions&) { return open_cuda_backend(device); }
std::unique_ptr<Compiler> cuda_compiler(const std::string& arch, const HostOptions&, const std::string&) { return open_nvrtc_compiler(arch); }
#else
constexpr std::unique_ptr<Backend> (*cuda_device)(int, const HostOptions&) = nullptr;
constexpr std::unique_ptr<Compiler> (*cuda_compiler)(const std::string&, const HostOptions&, const std::string&) = nullptr;
#endif
#ifdef HKCHECK_WITH_HIP
std::unique_ptr<Backend> hip_device(int device, const HostOptions&) { return open_hip_backend(device); }
std::unique_ptr<Compiler> hip_compiler(const std::string& arch, const HostOptions&, const std::string& root) {
  return open_hiprtc_compiler(arch, root);
}
#else
constexpr std::unique_ptr<Backend> (*hip_device)(int, const HostOptions&) = nullptr;
constexpr std::unique_ptr<Compiler> (*hip_compiler)(const std::string&, const HostOptions&, const std::string&) = nullptr;
#endif
std::unique_ptr<Backend> host_device(int, const HostOptions& host) { return open_host_backend(host); }
std::unique_ptr<Compiler> host_compiler(const std::string&, const HostOptions& host, const std::string&) { return open_host_compiler(host); }

// How each row of backend_table() opens its device and its compiler; nullptr when not built.
struct Opener {
  BackendId id;
  std::unique_ptr<Backend> (*device)(int device, const HostOptions& host);
  std::unique_ptr<Compiler> (*compiler)(const std::string& arch, const HostOptions& host, const std::string& hiprtc_root);
};
constexpr Opener kOpeners[] = {
    {BackendId::cuda, cuda_device, cuda_compiler},
    {BackendId::hip, hip_device, hip_compiler},
    {BackendId::host, host_device, host_compiler},
};

const Opener* opener_of(const std::string& name) {
  const BackendRow* r = find_backend(name);
  for (const Opener& o : kOpeners)
    if (r && o.id == r->id) return &o;
  return nullptr;
}

}  // namespace

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const BackendRow& r : backend_table())
    if (r.built) names.push_back(r.name);
  return names;
}

namespace {
std::string built_list() {
  std::string s;
  for (const std::string& n : backend_names()) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? std::string("none") : s;
}
}  // namespace

std::unique_ptr<Backend> open_backend(const std::string& name, int device, const HostOptions& host) {
  const Opener* o = opener_of(name);
  if (!o || !o->device) throw BackendUnavailable("backend '" + name + "' is not built into this hkcheck (built: " + built_list() + ")");
  return o->device(device, host);
}

std::unique_ptr<Compiler> open_compiler(const std::string& backend, const std::string& arch, const HostOptions& host,
                                        const std::string& hiprtc_root) {
  const Opener* o = opener_of(backend);
  if (!o || !o->compiler)
    throw BackendUnavailable(fmt::format("no compiler for backend '{}' (target {}) is built into this hkcheck", backend, arch));
  return o->compiler(arch, host, hiprtc_root);
}

std::vector<std::string> base_compile_options(const std::string& backend, const std::string& arch) {
  const BackendRow* r = find_backend(backend);
  if (!r || r->cpu) return {};  // the host compiler's flags are its own (backends/host/cxx_toolchain.h)
  const std::string macro = fmt::format("-D{}=1", r->macro);
  if (r->id == BackendId::cuda) return {"--gpu-architecture=" + arch, "-std=c++17", macro, "--pre-include=hk_nvcc_environment.h"};
  return {"--offload-arch=" + arch, "-std=c++17", macro};
}

const std::vector<std::pair<std::string, std::string>>& prelude_headers(const std::string& set) {
  auto build = [](const char* own_set) {
    std::vector<std::pair<std::string, std::string>> headers;
    for (const EmbeddedPreludeFile& f : kPreludeFiles)
      if (std::string(f.set) == "common" || (own_set && std::string(f.set) == own_set)) headers.emplace_back(f.name, f.text);
    return headers;
  };
  // The embedded files' sets (src/prelude/ folders) by the name a row's prelude gives.
  static const auto common = build(nullptr), cuda = build("nvrtc"), host = build("host"), hip5 = build("hiprtc5");
  if (set == "cuda") return cuda;
  if (set == "host") return host;
  if (set == "hip5") return hip5;
  return common;
}

}  // namespace hk
