// What the double says about its device: attributes one by one, and the properties struct in
// both layouts HIP has had (src/backends/hip_device_props.h). The unsuffixed
// hipGetDeviceProperties fills ROCm 5's layout in every generation, as the real library does for
// programs built against ROCm 5 headers; the ROCm 6 library adds hipGetDevicePropertiesR0000 (the
// same) and hipGetDevicePropertiesR0600 (the new one). Fields the double has no figure for are 0.
#include <algorithm>
#include <climits>
#include <cstring>

#include "backends/hip_device_props.h"
#include "device.h"

namespace hk::hip_double {
namespace {

template <typename T>
void put(unsigned char* props, size_t offset, T v) {
  std::memcpy(props + offset, &v, sizeof v);
}
void put_text(unsigned char* props, size_t offset, const std::string& s) {
  std::memcpy(props + offset, s.data(), std::min(s.size(), kHipPropsNameBytes - 1));
}
int as_int(int64_t v) { return static_cast<int>(std::min<int64_t>(v, INT_MAX)); }

void fill(Device& d, const HipPropsLayout& layout, unsigned char* props) {
  const DeviceInfo& info = d.info();
  const HostProfile& p = d.profile();
  std::memset(props, 0, layout.size);
  put_text(props, layout.name, info.name);
  put<size_t>(props, layout.total_global_mem, static_cast<size_t>(info.total_memory));
  put<size_t>(props, layout.shared_mem_per_block, static_cast<size_t>(p.shared_per_block));
  put<int>(props, layout.warp_size, p.warp_size);
  put<int>(props, layout.max_threads_per_block, as_int(p.max_threads_per_block));
  for (size_t i = 0; i < 3; ++i) {
    put<int>(props, layout.max_threads_dim + 4 * i, as_int(p.max_block[i]));
    put<int>(props, layout.max_grid_size + 4 * i, as_int(p.max_grid[i]));
  }
  put<int>(props, layout.multi_processor_count, as_int(info.multiprocessors));
  put_text(props, layout.gcn_arch_name, d.gcn_arch_name());
}

hipError_t properties(const char* call, const HipPropsLayout& layout, void* out, int device) {
  return device_call(call, [&](Device& d) {
    if (!out) return hipErrorInvalidValue;
    if (device != 0) return hipErrorInvalidDevice;
    fill(d, layout, static_cast<unsigned char*>(out));
    return hipSuccess;
  });
}

}  // namespace
}  // namespace hk::hip_double

using namespace hk::hip_double;

extern "C" {

hipError_t hipGetDeviceProperties(hipDeviceProp_t* props, int device) {
  return properties("hipGetDeviceProperties", hk::kHipPropsR0000, props, device);
}
// Not declared by ROCm 5's header; exported by the ROCm 6 build only (exports_rocm6.map).
hipError_t hipGetDevicePropertiesR0000(void* props, int device) {
  return properties("hipGetDevicePropertiesR0000", hk::kHipPropsR0000, props, device);
}
hipError_t hipGetDevicePropertiesR0600(void* props, int device) {
  return properties("hipGetDevicePropertiesR0600", hk::kHipPropsR0600, props, device);
}

hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
  return device_call("hipDeviceGetAttribute", [&](Device& d) {
    if (!value) return hipErrorInvalidValue;
    if (device != 0) return hipErrorInvalidDevice;
    const hk::HostProfile& p = d.profile();
    switch (attr) {
      case hipDeviceAttributeMaxThreadsPerBlock: *value = as_int(p.max_threads_per_block); break;
      case hipDeviceAttributeMaxBlockDimX: *value = as_int(p.max_block[0]); break;
      case hipDeviceAttributeMaxBlockDimY: *value = as_int(p.max_block[1]); break;
      case hipDeviceAttributeMaxBlockDimZ: *value = as_int(p.max_block[2]); break;
      case hipDeviceAttributeMaxGridDimX: *value = as_int(p.max_grid[0]); break;
      case hipDeviceAttributeMaxGridDimY: *value = as_int(p.max_grid[1]); break;
      case hipDeviceAttributeMaxGridDimZ: *value = as_int(p.max_grid[2]); break;
      case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = as_int(p.shared_per_block); break;
      case hipDeviceAttributeSharedMemPerBlockOptin: *value = as_int(p.shared_per_block_optin); break;
      case hipDeviceAttributeMultiprocessorCount: *value = as_int(d.info().multiprocessors); break;
      case hipDeviceAttributeWarpSize: *value = p.warp_size; break;
      default: return hipErrorInvalidValue;  // an attribute the double has no figure for
    }
    return hipSuccess;
  });
}

}  // extern "C"
