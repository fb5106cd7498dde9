// The one device the double has. The host backend (open_backend("host") with the profile of the
// double's target) compiles nothing here and does the work: guarded memory, module loads and
// launches on threads and fibers. The double keeps what a HIP runtime keeps around it: the
// allocations, modules, functions and events it handed out, and the sticky error that fails
// every call after a fault.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "code_object.h"
#include "error_names.h"
#include "faults.h"
#include "platform/host_profile.h"
#include "report.h"

// The handle types HIP's header declares and leaves to the runtime.
struct ihipModuleSymbol_t {
  hk::Backend::Kernel kernel;
  std::string name;
};
struct ihipModule_t {
  hk::hip_double::CodeObject code;
  std::vector<std::unique_ptr<ihipModuleSymbol_t>> functions;
};
struct ihipEvent_t {
  std::optional<std::chrono::steady_clock::time_point> recorded;
};

namespace hk::hip_double {

class Device {
 public:
  // The process's device, made on first use; nullptr and the error every call then answers when
  // it cannot be made (no C++ compiler, a fault variable that is not valid: said on stderr).
  static Device* instance(hipError_t* error);

  std::mutex& mutex() { return mutex_; }
  Backend& host() { return *host_; }
  const DeviceInfo& info() const { return info_; }
  const HostProfile& profile() const { return profile_; }
  std::string gcn_arch_name() const { return profile_.arch + ":sramecc+:xnack-"; }
  const Faults& faults() const { return faults_; }

  hipError_t sticky = hipSuccess;  // once set, every call answers it
  std::map<uintptr_t, size_t> allocations;  // base -> bytes
  std::set<ihipModule_t*> modules;          // owned, until hipModuleUnload
  std::set<ihipModuleSymbol_t*> functions;  // owned by their module
  std::set<ihipEvent_t*> events;            // owned, until hipEventDestroy

  // Whether [p, p + bytes) lies in one allocation.
  bool covers(const void* p, size_t bytes) const;

 private:
  Device();
  std::mutex mutex_;
  Faults faults_;
  HostProfile profile_;
  std::unique_ptr<Backend> host_;
  DeviceInfo info_;
};

// Runs one call of the runtime under the device's lock: the device made, the sticky error
// answered first, and no exception out of the C interface.
template <typename F>
hipError_t device_call(const char* call, F&& body) {
  hipError_t error = hipSuccess;
  Device* d = Device::instance(&error);
  if (!d) return error;
  std::lock_guard<std::mutex> lock(d->mutex());
  if (d->sticky != hipSuccess) return d->sticky;
  try {
    return body(*d);
  } catch (const std::bad_alloc&) {
    return hipErrorOutOfMemory;
  } catch (const std::exception& e) {
    report(call, e.what());
    return hipErrorUnknown;
  }
}

}  // namespace hk::hip_double
