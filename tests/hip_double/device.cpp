#include "device.h"

#include <fmt/format.h>
#include <stdexcept>

#include "run/run_environment.h"
#include "target_profile.h"

namespace hk::hip_double {

Device* Device::instance(hipError_t* error) {
  // Made once and never destroyed: a process may end from anywhere, kernels' threads included.
  static hipError_t failed = hipSuccess;
  static Device* device = [] () -> Device* {
    try {
      return new Device();
    } catch (const std::invalid_argument& e) {
      report("the device", e.what());
      failed = hipErrorInvalidValue;
    } catch (const std::exception& e) {
      report("the device", e.what());
      failed = hipErrorNoDevice;
    }
    return nullptr;
  }();
  *error = failed;
  return device;
}

Device::Device() : faults_(Faults::from_environment()) {
  const std::string arch = device_arch();
  const HostProfile* p = profile_for_arch(arch);
  if (!p) throw std::runtime_error(fmt::format("HKCHECK_HIP_DOUBLE_ARCH={}: no host profile has it (known: {})", arch, profile_arches()));
  profile_ = *p;
  host_ = open_backend("host", 0, HostOptions{profile_.name, 0, default_cache_dir()});
  info_ = host_->device();
  info_.backend = "hip";
  info_.name = fmt::format("hkcheck HIP test double ({} profile)", profile_.name);
}

bool Device::covers(const void* p, size_t bytes) const {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto it = allocations.upper_bound(at);
  if (it == allocations.begin()) return false;
  --it;
  return at - it->first <= it->second && bytes <= it->second - (at - it->first);
}

}  // namespace hk::hip_double
