#include "platform/backend.h"
#include "util/json_field.h"

#include <chrono>

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
