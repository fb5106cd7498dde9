// <cuda_fp16.h> on the host backend.
#pragma once
#include "hk_host_half.h"
