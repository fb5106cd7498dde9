// <hip/amd_detail/hip_ldg.h>, which libraries include directly: the host backend's HIP is one header.
#pragma once
#include "hip/hip_runtime.h"
