// <hip/hip_cooperative_groups.h> on the host backend: the same groups as CUDA's
// (cooperative_groups.h here: the block and static tiles of a warp).
#pragma once
#include "hip/hip_runtime.h"
#include "cooperative_groups.h"
