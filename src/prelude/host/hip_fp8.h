// <hip_fp8.h> without the hip/ prefix, as ROCm installs it too.
#pragma once
#include "hip/hip_fp8.h"
