#include "platform/backend_table.h"

#include <fmt/format.h>

#include <stdexcept>

#include "platform/backend.h"
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
constexpr bool kCudaBuilt = true;
std::unique_ptr<Backend> cuda_device(int device, const HostOptions&) { return open_cuda_backend(device); }
std::unique_ptr<Compiler> cuda_compiler(const std::string& arch, const HostOptions&, const std::string&) { return open_nvrtc_compiler(arch); }
#else
constexpr bool kCudaBuilt = false;
constexpr std::unique_ptr<Backend> (*cuda_device)(int, const HostOptions&) = nullptr;
constexpr std::unique_ptr<Compiler> (*cuda_compiler)(const std::string&, const HostOptions&, const std::string&) = nullptr;
#endif
#ifdef HKCHECK_WITH_HIP
constexpr bool kHipBuilt = true;
std::unique_ptr<Backend> hip_device(int device, const HostOptions&) { return open_hip_backend(device); }
std::unique_ptr<Compiler> hip_compiler(const std::string& arch, const HostOptions&, const std::string& root) {
  return open_hiprtc_compiler(arch, root);
}
#else
constexpr bool kHipBuilt = false;
constexpr std::unique_ptr<Backend> (*hip_device)(int, const HostOptions&) = nullptr;
constexpr std::unique_ptr<Compiler> (*hip_compiler)(const std::string&, const HostOptions&, const std::string&) = nullptr;
#endif
std::unique_ptr<Backend> host_device(int, const HostOptions& host) { return open_host_backend(host); }
std::unique_ptr<Compiler> host_compiler(const std::string&, const HostOptions& host, const std::string&) { return open_host_compiler(host); }

}  // namespace

const std::vector<BackendRow>& backend_table() {
  // The host's prelude "host" maps CUDA's and HIP's device API onto C++; "cuda" adds the standard
  // headers NVRTC lacks; "hip5" the headers ROCm 5's hipRTC lacks or cannot take from the system
  // (backends/hiprtc_compiler.cpp picks it), so a HIP compile's cache key covers it.
  static const std::vector<BackendRow> rows = {
      {.id = BackendId::cuda, .name = "cuda", .title = "CUDA", .source_vendor = "cuda", .source_extension = "cu",
       .arch_prefix = "sm_", .compiler = "nvrtc", .compiler_title = "NVRTC", .macro = "HK_BACKEND_CUDA",
       .visible_devices = "CUDA_VISIBLE_DEVICES", .prelude = "cuda", .keyed_prelude = "cuda", .clang_language = "cuda",
       .exact_float_option = "--fmad=false", .resource_log_option = "--ptxas-options=-v", .resources = ResourceFormat::cubin,
       .cpu = false, .sanitizer = true, .compiles_ahead = true, .built = kCudaBuilt, .open_device = cuda_device,
       .open_compiler = cuda_compiler},
      {.id = BackendId::hip, .name = "hip", .title = "HIP", .source_vendor = "hip", .source_extension = "hip",
       .arch_prefix = "gfx", .compiler = "hiprtc", .compiler_title = "hipRTC", .macro = "HK_BACKEND_HIP",
       .visible_devices = "HIP_VISIBLE_DEVICES", .prelude = "hip", .keyed_prelude = "hip5", .clang_language = "hip",
       .exact_float_option = "-ffp-contract=off", .resource_log_option = "", .resources = ResourceFormat::amdgpu,
       .cpu = false, .sanitizer = false, .compiles_ahead = false, .built = kHipBuilt, .open_device = hip_device,
       .open_compiler = hip_compiler},
      {.id = BackendId::host, .name = "host", .title = "host", .source_vendor = "", .source_extension = "",
       .arch_prefix = "", .compiler = "host", .compiler_title = "the host C++ compiler", .macro = "HK_BACKEND_HOST",
       .visible_devices = "", .prelude = "host", .keyed_prelude = "host", .clang_language = "",
       .exact_float_option = "-ffp-contract=off", .resource_log_option = "", .resources = ResourceFormat::none,
       .cpu = true, .sanitizer = false, .compiles_ahead = false, .built = true, .open_device = host_device,
       .open_compiler = host_compiler},
  };
  return rows;
}

const BackendRow& backend_row(BackendId id) {
  for (const BackendRow& r : backend_table())
    if (r.id == id) return r;
  throw std::logic_error("a backend id without a row");
}

const BackendRow* find_backend(const std::string& name) {
  for (const BackendRow& r : backend_table())
    if (name == r.name) return &r;
  return nullptr;
}

const BackendRow& backend_row(const std::string& name) {
  if (const BackendRow* r = find_backend(name)) return *r;
  throw std::invalid_argument(fmt::format("no backend '{}' (there are: {})", name, backend_name_list()));
}

const BackendRow* backend_for_arch(const std::string& arch) {
  for (const BackendRow& r : backend_table())
    if (*r.arch_prefix && arch.rfind(r.arch_prefix, 0) == 0) return &r;
  return nullptr;
}

const BackendRow* backend_for_source_vendor(const std::string& vendor) {
  for (const BackendRow& r : backend_table())
    if (*r.source_vendor && vendor == r.source_vendor) return &r;
  return nullptr;
}

const BackendRow* backend_for_compiler(const std::string& compiler) {
  for (const BackendRow& r : backend_table())
    if (compiler == r.compiler) return &r;
  return nullptr;
}

const BackendRow& host_backend() {
  for (const BackendRow& r : backend_table())
    if (r.cpu) return r;
  throw std::logic_error("no backend runs on the CPU");
}

bool on_cpu(const std::string& name) {
  const BackendRow* r = find_backend(name);
  return r && r->cpu;
}

std::string backend_name_list() {
  std::string s;
  for (const BackendRow& r : backend_table()) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

// The functions of platform/backend.h and platform/compiler.h that only read the table.

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
  const BackendRow* r = find_backend(name);
  if (!r || !r->open_device) throw BackendUnavailable("backend '" + name + "' is not built into this hkcheck (built: " + built_list() + ")");
  return r->open_device(device, host);
}

std::unique_ptr<Compiler> open_compiler(const std::string& backend, const std::string& arch, const HostOptions& host,
                                        const std::string& hiprtc_root) {
  const BackendRow* r = find_backend(backend);
  if (!r || !r->open_compiler)
    throw BackendUnavailable(fmt::format("no compiler for backend '{}' (target {}) is built into this hkcheck", backend, arch));
  return r->open_compiler(arch, host, hiprtc_root);
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
