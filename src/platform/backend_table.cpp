#include "platform/backend_table.h"

#include <fmt/format.h>

#include <stdexcept>


namespace hk {

#ifdef HKCHECK_WITH_CUDA
constexpr bool kCudaBuilt = true;
#else
constexpr bool kCudaBuilt = false;
#endif
#ifdef HKCHECK_WITH_HIP
constexpr bool kHipBuilt = true;
#else
constexpr bool kHipBuilt = false;
#endif

const std::vector<BackendRow>& backend_table() {
  // The host's prelude "host" maps CUDA's and HIP's device API onto C++; "cuda" adds the standard
  // headers NVRTC lacks; "hip5" the headers ROCm 5's hipRTC lacks or cannot take from the system
  // (backends/hiprtc_compiler.cpp picks it), so a HIP compile's cache key covers it.
  static const std::vector<BackendRow> rows = {
      {.id = BackendId::cuda, .name = "cuda", .title = "CUDA", .source_vendor = "cuda", .source_extension = "cu",
       .arch_prefix = "sm_", .compiler = "nvrtc", .compiler_title = "NVRTC", .macro = "HK_BACKEND_CUDA",
       .visible_devices = "CUDA_VISIBLE_DEVICES", .prelude = "cuda", .keyed_prelude = "cuda", .clang_language = "cuda",
       .exact_float_option = "--fmad=false", .resource_log_option = "--ptxas-options=-v", .resources = ResourceFormat::cubin,
       .cpu = false, .sanitizer = true, .compiles_ahead = true, .built = kCudaBuilt},
      {.id = BackendId::hip, .name = "hip", .title = "HIP", .source_vendor = "hip", .source_extension = "hip",
       .arch_prefix = "gfx", .compiler = "hiprtc", .compiler_title = "hipRTC", .macro = "HK_BACKEND_HIP",
       .visible_devices = "HIP_VISIBLE_DEVICES", .prelude = "hip", .keyed_prelude = "hip5", .clang_language = "hip",
       .exact_float_option = "-ffp-contract=off", .resource_log_option = "", .resources = ResourceFormat::amdgpu,
       .cpu = false, .sanitizer = false, .compiles_ahead = false, .built = kHipBuilt},
      {.id = BackendId::host, .name = "host", .title = "host", .source_vendor = "", .source_extension = "",
       .arch_prefix = "", .compiler = "host", .compiler_title = "the host C++ compiler", .macro = "HK_BACKEND_HOST",
       .visible_devices = "", .prelude = "host", .keyed_prelude = "host", .clang_language = "",
       .exact_float_option = "-ffp-contract=off", .resource_log_option = "", .resources = ResourceFormat::none,
       .cpu = true, .sanitizer = false, .compiles_ahead = false, .built = true},
  };
  return rows;
}

namespace {

// The first row that has it, or nullptr.
template <class Has>
const BackendRow* first_row(Has has) {
  for (const BackendRow& r : backend_table())
    if (has(r)) return &r;
  return nullptr;
}

}  // namespace

const BackendRow& backend_row(BackendId id) {
  if (const BackendRow* r = first_row([&](const BackendRow& r) { return r.id == id; })) return *r;
  throw std::logic_error("a backend id without a row");
}

const BackendRow* find_backend(const std::string& name) {
  return first_row([&](const BackendRow& r) { return name == r.name; });
}

const BackendRow& backend_row(const std::string& name) {
  if (const BackendRow* r = find_backend(name)) return *r;
  throw std::invalid_argument(fmt::format("no backend '{}' (there are: {})", name, backend_name_list()));
}

const BackendRow* backend_for_arch(const std::string& arch) {
  return first_row([&](const BackendRow& r) { return *r.arch_prefix && arch.rfind(r.arch_prefix, 0) == 0; });
}

const BackendRow* backend_for_source_vendor(const std::string& vendor) {
  return first_row([&](const BackendRow& r) { return *r.source_vendor && vendor == r.source_vendor; });
}

const BackendRow* backend_for_compiler(const std::string& compiler) {
  return first_row([&](const BackendRow& r) { return compiler == r.compiler; });
}

const BackendRow& host_backend() {
  if (const BackendRow* r = first_row([](const BackendRow& r) { return r.cpu; })) return *r;
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

}  // namespace hk
