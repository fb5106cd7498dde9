#include "target_profile.h"

#include <cstdlib>

namespace hk::hip_double {

std::string device_arch() {
  const char* a = std::getenv("HKCHECK_HIP_DOUBLE_ARCH");
  return a && *a ? a : "gfx942";
}

const HostProfile* profile_for_arch(const std::string& arch) {
  const std::string bare = arch.substr(0, arch.find(':'));
  for (const HostProfile& p : host_profiles())
    if (p.arch == bare) return &p;
  return nullptr;
}

std::string profile_arches() {
  std::string s;
  for (const HostProfile& p : host_profiles())
    if (p.arch.rfind("gfx", 0) == 0) s += (s.empty() ? "" : ", ") + p.arch + " (" + p.name + ")";
  return s;
}

}  // namespace hk::hip_double
