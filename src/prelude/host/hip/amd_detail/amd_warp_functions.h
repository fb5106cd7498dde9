// <hip/amd_detail/amd_warp_functions.h>, which libraries include directly: the host backend's HIP is one header.
#pragma once
#include "hip/hip_runtime.h"
