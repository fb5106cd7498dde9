// <hip/hip_runtime.h> for ROCm 5's hipRTC: its own is built in and already included.
#pragma once
