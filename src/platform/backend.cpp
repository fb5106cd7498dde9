#include "platform/backend.h"
#include "util/json_field.h"

#include <chrono>

#include "prelude_sources.h"

namespace hk {

std::vector<double> Backend::time_launches(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
                                           int64_t shared_bytes, void** args, int launches) {
  std::vector<double> ms;
  for (int i = 0; i < launches; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    launch(k, grid, block, shared_bytes, args);
    synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

#ifdef HKCHECK_WITH_CUDA
std::unique_ptr<Backend> open_cuda_backend(int device);
#endif
#ifdef HKCHECK_WITH_HIP
std::unique_ptr<Backend> open_hip_backend(int device);
#endif
std::unique_ptr<Backend> open_host_backend(const HostOptions& opt);

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
#ifdef HKCHECK_WITH_CUDA
  names.push_back("cuda");
#endif
#ifdef HKCHECK_WITH_HIP
  names.push_back("hip");
#endif
  names.push_back("host");  // last: "auto" prefers any GPU
  return names;
}

std::unique_ptr<Backend> open_backend(const std::string& name, int device, const HostOptions& host) {
  if (name == "host") return open_host_backend(host);
#ifdef HKCHECK_WITH_CUDA
  if (name == "cuda") return open_cuda_backend(device);
#endif
#ifdef HKCHECK_WITH_HIP
  if (name == "hip") return open_hip_backend(device);
#endif
  throw BackendUnavailable("backend '" + name + "' is not built into this hkcheck (built: " +
                           [] {
                             std::string s;
                             for (const auto& n : backend_names()) s += (s.empty() ? "" : ", ") + n;
                             return s.empty() ? std::string("none") : s;
                           }() + ")");
}

std::vector<std::string> base_compile_options(const std::string& backend, const std::string& arch) {
  if (backend == "cuda") return {"--gpu-architecture=" + arch, "-std=c++17", "-DHK_BACKEND_CUDA=1", "--pre-include=hk_nvcc_environment.h"};
  if (backend == "hip") return {"--offload-arch=" + arch, "-std=c++17", "-DHK_BACKEND_HIP=1"};
  return {};
}

const std::vector<std::pair<std::string, std::string>>& prelude_headers(const std::string& backend) {
  // "cuda" adds the standard headers NVRTC lacks, "host" what CUDA's and HIP's headers mean on a
  // CPU, "hip5" the headers ROCm 5's hipRTC lacks or cannot take from the system.
  auto build = [](const char* own_set) {
    std::vector<std::pair<std::string, std::string>> headers;
    for (const EmbeddedPreludeFile& f : kPreludeFiles)
      if (std::string(f.set) == "common" || (own_set && std::string(f.set) == own_set)) headers.emplace_back(f.name, f.text);
    return headers;
  };
  static const auto common = build(nullptr), cuda = build("nvrtc"), host = build("host"), hip5 = build("hiprtc5");
  if (backend == "cuda") return cuda;
  if (backend == "host") return host;
  if (backend == "hip5") return hip5;
  return common;
}

void to_json(nlohmann::json& j, const DeviceInfo& d) {
  j = {{"backend", d.backend},
       {"name", d.name},
       {"arch", d.arch},
       {"driver_version", d.driver_version},
       {"runtime_version", d.runtime_version},
       {"max_threads_per_block", d.max_threads_per_block},
       {"max_block", d.max_block},
       {"max_grid", d.max_grid},
       {"shared_per_block", d.shared_per_block},
       {"shared_per_block_optin", d.shared_per_block_optin},
       {"total_memory", d.total_memory},
       {"multiprocessors", d.multiprocessors},
       {"warp_size", d.warp_size}};
  if (!d.note.empty()) j["note"] = d.note;
}

void from_json(const nlohmann::json& j, DeviceInfo& d) {
  read_field(j, "backend", d.backend);
  read_field(j, "name", d.name);
  read_field(j, "arch", d.arch);
  read_field(j, "driver_version", d.driver_version);
  read_field(j, "runtime_version", d.runtime_version);
  read_field(j, "max_threads_per_block", d.max_threads_per_block);
  read_field(j, "max_block", d.max_block);
  read_field(j, "max_grid", d.max_grid);
  read_field(j, "shared_per_block", d.shared_per_block);
  read_field(j, "shared_per_block_optin", d.shared_per_block_optin);
  read_field(j, "total_memory", d.total_memory);
  read_field(j, "multiprocessors", d.multiprocessors);
  read_field(j, "warp_size", d.warp_size);
  d.note = j.value("note", "");
}

}  // namespace hk
