// <hip/amd_detail/amd_hip_bf16.h>, which libraries include directly: the host backend's HIP is one header.
#pragma once
#include "hip/hip_runtime.h"
