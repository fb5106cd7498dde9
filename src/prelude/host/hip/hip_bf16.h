// <hip/hip_bf16.h> on the host backend: the 16-bit types come with hip_runtime.h.
#pragma once
#include "hip/hip_runtime.h"
