// The double's runtime calls besides modules and launches (module_api.cpp) and the properties
// (device_properties.cpp): errors, the device, versions, memory and events.
#include <cstring>
#include <fmt/format.h>

#include "device.h"
#include "generation.h"

using namespace hk::hip_double;

extern "C" {

const char* hipGetErrorName(hipError_t e) { return error_name(e); }
const char* hipGetErrorString(hipError_t e) { return error_text(e); }

hipError_t hipInit(unsigned int flags) {
  return device_call("hipInit", [&](Device&) { return flags == 0 ? hipSuccess : hipErrorInvalidValue; });
}

hipError_t hipGetDeviceCount(int* count) {
  if (!count) return hipErrorInvalidValue;
  *count = 0;
  return device_call("hipGetDeviceCount", [&](Device&) {
    *count = 1;
    return hipSuccess;
  });
}

hipError_t hipSetDevice(int device) {
  return device_call("hipSetDevice", [&](Device&) { return device == 0 ? hipSuccess : hipErrorInvalidDevice; });
}

hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  return device_call("hipDeviceGetName", [&](Device& d) {
    if (!name || len <= 0) return hipErrorInvalidValue;
    if (device != 0) return hipErrorInvalidDevice;
    const std::string& n = d.info().name;
    const size_t copied = std::min(n.size(), static_cast<size_t>(len) - 1);
    std::memcpy(name, n.data(), copied);
    name[copied] = '\0';
    return hipSuccess;
  });
}

hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  return device_call("hipDeviceTotalMem", [&](Device& d) {
    if (!bytes) return hipErrorInvalidValue;
    if (device != 0) return hipErrorInvalidDevice;
    *bytes = static_cast<size_t>(d.info().total_memory);
    return hipSuccess;
  });
}

// On AMD the driver's version is the runtime's.
hipError_t hipDriverGetVersion(int* version) {
  if (!version) return hipErrorInvalidValue;
  *version = kGeneration.runtime_version;
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int* version) { return hipDriverGetVersion(version); }

hipError_t hipMalloc(void** ptr, size_t bytes) {
  return device_call("hipMalloc", [&](Device& d) {
    if (!ptr) return hipErrorInvalidValue;
    *ptr = nullptr;
    if (bytes == 0) return hipSuccess;
    if (d.faults().max_alloc && bytes > *d.faults().max_alloc) return hipErrorOutOfMemory;
    try {
      const uint64_t p = d.host().alloc(bytes);
      d.allocations[p] = bytes;
      *ptr = reinterpret_cast<void*>(p);
    } catch (const hk::BackendError&) {  // the host's memory ran out
      return hipErrorOutOfMemory;
    }
    return hipSuccess;
  });
}

hipError_t hipFree(void* ptr) {
  return device_call("hipFree", [&](Device& d) {
    if (!ptr) return hipSuccess;
    const auto it = d.allocations.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == d.allocations.end()) return hipErrorInvalidValue;
    d.host().free(it->first);
    d.allocations.erase(it);
    return hipSuccess;
  });
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t bytes) {
  return device_call("hipMemcpyHtoD", [&](Device& d) {
    if (bytes == 0) return hipSuccess;
    if (!src || !d.covers(dst, bytes)) return hipErrorInvalidValue;
    d.host().upload(reinterpret_cast<uint64_t>(dst), src, bytes);
    return hipSuccess;
  });
}

hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes) {
  return device_call("hipMemcpyDtoH", [&](Device& d) {
    if (bytes == 0) return hipSuccess;
    if (!dst || !d.covers(src, bytes)) return hipErrorInvalidValue;
    d.host().download(dst, reinterpret_cast<uint64_t>(src), bytes);
    return hipSuccess;
  });
}

// Launches run to completion before hipModuleLaunchKernel returns: there is nothing to wait for,
// only a fault to answer (device_call does).
hipError_t hipDeviceSynchronize() {
  return device_call("hipDeviceSynchronize", [](Device&) { return hipSuccess; });
}

hipError_t hipEventCreate(hipEvent_t* event) {
  return device_call("hipEventCreate", [&](Device& d) {
    if (!event) return hipErrorInvalidValue;
    *event = new ihipEvent_t{};
    d.events.insert(*event);
    return hipSuccess;
  });
}

hipError_t hipEventDestroy(hipEvent_t event) {
  return device_call("hipEventDestroy", [&](Device& d) {
    if (!d.events.erase(event)) return hipErrorInvalidHandle;
    delete event;
    return hipSuccess;
  });
}

// An event records when the work before it is done: at once, since launches are synchronous.
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  return device_call("hipEventRecord", [&](Device& d) {
    if (!d.events.count(event) || stream != nullptr) return hipErrorInvalidHandle;  // only the null stream here
    event->recorded = std::chrono::steady_clock::now();
    return hipSuccess;
  });
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  return device_call("hipEventSynchronize", [&](Device& d) { return d.events.count(event) ? hipSuccess : hipErrorInvalidHandle; });
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  return device_call("hipEventElapsedTime", [&](Device& d) {
    if (!ms) return hipErrorInvalidValue;
    if (!d.events.count(start) || !d.events.count(stop) || !start->recorded || !stop->recorded) return hipErrorInvalidHandle;
    *ms = std::chrono::duration<float, std::milli>(*stop->recorded - *start->recorded).count();
    return hipSuccess;
  });
}

}  // extern "C"
