// hipCUB on the host backend: the same block and warp collectives as cub's stand-ins (cub.cuh),
// under hipCUB's names. hipCUB's warp collectives default to the hardware warp (64 lanes on
// AMD's GPUs), cub's to 32; here they default to the profile's warp size.
#pragma once
#include <cub/cub.cuh>

namespace hipcub {
using namespace ::cub;  // every name below hipcub:: that is not declared here
template <typename T, int LOGICAL_WARP_THREADS = HK_HOST_WARP_SIZE, int ARCH = 0>
using WarpReduce = ::cub::WarpReduce<T, LOGICAL_WARP_THREADS>;
template <typename T, int LOGICAL_WARP_THREADS = HK_HOST_WARP_SIZE, int ARCH = 0>
using WarpScan = ::cub::WarpScan<T, LOGICAL_WARP_THREADS>;
}  // namespace hipcub
