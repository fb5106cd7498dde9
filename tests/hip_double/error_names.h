// The names and texts of the errors the double answers, as hipGetErrorName and
// hipGetErrorString give them, and hipRTC's.
#pragma once

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

namespace hk::hip_double {

const char* error_name(hipError_t e);
const char* error_text(hipError_t e);
const char* hiprtc_error_name(hiprtcResult r);

}  // namespace hk::hip_double
