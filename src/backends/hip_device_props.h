// Where hkcheck finds what it reads in HIP's hipDeviceProp_t, in each layout the runtime has had.
// ROCm 5 had one layout; ROCm 6 added fields in the middle and named the new struct R0600. Its
// library keeps the old one too: the unsuffixed hipGetDeviceProperties (the symbol a program built
// against ROCm 5 headers calls) and hipGetDevicePropertiesR0000 fill the old layout, and
// hipGetDevicePropertiesR0600 (what ROCm 6+ headers map hipGetDeviceProperties to) the new one.
// hkcheck is built against one HIP's headers and must read whichever the library it loads offers,
// so the layouts are byte offsets here, checked against the headers wherever those are found
// (hip_backend.cpp against the build's own, tests/hip_double against ROCm 6+ headers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace hk {

struct HipPropsLayout {
  const char* function;  // the library symbol that fills this layout
  size_t size;           // bytes the runtime writes
  size_t name;           // char[256], the marketing name
  size_t total_global_mem;       // size_t
  size_t shared_mem_per_block;   // size_t
  size_t warp_size;              // int
  size_t max_threads_per_block;  // int
  size_t max_threads_dim;        // int[3]
  size_t max_grid_size;          // int[3]
  size_t multi_processor_count;  // int
  size_t gcn_arch_name;          // char[256], "gfx942:sramecc+:xnack-"
};

inline constexpr size_t kHipPropsNameBytes = 256;

// ROCm 5 (bookworm's 5.2 headers), and the unsuffixed symbol of every later ROCm.
inline constexpr HipPropsLayout kHipPropsR0000{"hipGetDeviceProperties", 792, 0, 256, 264, 276, 280, 284, 296, 336, 396};
// ROCm 6.0 and later, through at least 7.2.
inline constexpr HipPropsLayout kHipPropsR0600{"hipGetDevicePropertiesR0600", 1472, 0, 288, 296, 308, 320, 324, 336, 388, 1160};

// A field of a properties buffer filled in some layout.
template <typename T>
T hip_prop(const unsigned char* props, size_t offset) {
  T v{};
  std::memcpy(&v, props + offset, sizeof v);
  return v;
}
inline std::string hip_prop_text(const unsigned char* props, size_t offset) {
  const char* p = reinterpret_cast<const char*>(props + offset);
  return std::string(p, strnlen(p, kHipPropsNameBytes));
}

}  // namespace hk
