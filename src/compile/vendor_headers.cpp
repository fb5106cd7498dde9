#include "compile/vendor_headers.h"

#include <array>

#include "platform/backend_table.h"

namespace hk {

std::string vendor_of_header(const std::string& name) {
  // Prefixes of header names (not backend names).
  static const std::array<const char*, 17> cuda = {"cuda", "cub/", "cooperative_groups", "mma.h", "thrust/", "cute/", "cutlass/", "nv/",
                                                   "crt/", "curand", "cublas", "cufft", "nvrtc", "sm_", "vector_types.h", "device_launch_parameters.h",
                                                   "kittens.cuh"};
  static const std::array<const char*, 7> hip = {"hip/", "hip_", "hipcub/", "rocprim/", "rocwmma/", "rocrand", "hipblas"};
  const auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  for (const char* p : cuda)
    if (starts(p)) return backend_row(BackendId::cuda).source_vendor;
  for (const char* p : hip)
    if (starts(p)) return backend_row(BackendId::hip).source_vendor;
  return "";
}

}  // namespace hk
