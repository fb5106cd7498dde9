#include "platform/host_profile.h"

#include "platform/targets.h"

namespace hk {
namespace {

// A profile takes its limits from its architecture's row of the target table.
HostProfile from_target(const std::string& name, const std::string& emulates, const std::string& arch, std::array<int64_t, 3> max_block) {
  const Target& t = *find_target(arch);
  return HostProfile{name, emulates, arch, t.warp_size, t.max_threads_per_block, max_block, {2147483647, 65535, 65535},
                     t.shared_per_block, t.shared_per_block_optin};
}

}  // namespace

const std::vector<HostProfile>& host_profiles() {
  static const std::vector<HostProfile> profiles = {
      from_target("h100", "NVIDIA H100: warp 32, 48 KiB shared memory per block (227 KiB opted in)", "sm_90", {1024, 1024, 64}),
      from_target("mi325x", "AMD Instinct MI325X: wavefront 64, 64 KiB shared memory per block", "gfx942", {1024, 1024, 1024}),
      from_target("mi355x", "AMD Instinct MI355X: wavefront 64, 160 KiB shared memory per block", "gfx950", {1024, 1024, 1024}),
  };
  return profiles;
}

const HostProfile* find_host_profile(const std::string& name) {
  for (const auto& p : host_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::string host_profile_names() {
  std::string s;
  for (const auto& p : host_profiles()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace hk
