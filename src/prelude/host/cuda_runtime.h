// <cuda_runtime.h> on the host backend: what device code takes from it (vector types, dim3;
// included with the host dialect) and the 16-bit float types. Host API calls are not available.
#pragma once
#include "hk_host_half.h"
