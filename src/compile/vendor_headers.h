// Which vendor's own headers an #include names: a CUDA file compiled for AMD (or a HIP file for
// NVIDIA) stops at such a header, and the way on is a per-vendor "source", not "include_dirs".
#pragma once

#include <string>

namespace hk {

// "cuda" for CUDA's and NVIDIA's libraries' headers (cuda_bf16.h, cooperative_groups.h, cub/,
// cute/, ...), "hip" for HIP's and ROCm's (hip/, hipcub/, rocprim/, ...), "" for any other.
std::string vendor_of_header(const std::string& include_name);

}  // namespace hk
