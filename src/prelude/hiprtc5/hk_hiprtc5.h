// Pre-included by ROCm 5's hipRTC (Debian's libamdhip64 5.2): what HIP code takes for granted and
// that hipRTC's built-in hip_runtime.h leaves out. ROCm 6's hipRTC gets none of this folder.
#pragma once
#ifndef HIP_DYNAMIC_SHARED
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#endif
#ifndef HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#endif
