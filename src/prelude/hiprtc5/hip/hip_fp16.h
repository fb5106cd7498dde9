// <hip/hip_fp16.h> for ROCm 5's hipRTC: __half and its functions are built in; the system's
// header would define them a second time.
#pragma once
