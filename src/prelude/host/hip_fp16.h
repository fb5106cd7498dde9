// <hip_fp16.h> without the hip/ prefix, as ROCm installs it too.
#pragma once
#include "hip/hip_fp16.h"
