// <hip_bf16.h> without the hip/ prefix, as ROCm installs it too.
#pragma once
#include "hip/hip_bf16.h"
