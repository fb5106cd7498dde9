#include "host_profile.h"

namespace hk {

const std::vector<HostProfile>& host_profiles() {
  // Figures as the devices report them (cuDeviceGetAttribute / hipDeviceGetAttribute).
  static const std::vector<HostProfile> profiles = {
      {"h100", "NVIDIA H100: warp 32, 48 KiB shared memory per block (227 KiB opted in)", "sm_90", 32, 1024,
       {1024, 1024, 64}, {2147483647, 65535, 65535}, 49152, 232448},
      {"mi325x", "AMD Instinct MI325X: wavefront 64, 64 KiB shared memory per block", "gfx942", 64, 1024,
       {1024, 1024, 1024}, {2147483647, 65535, 65535}, 65536, 65536},
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
