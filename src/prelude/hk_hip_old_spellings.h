// HIP's old spellings of the built-in indices (hipThreadIdx_x, hipBlockDim_y, ...), which older
// samples still use: ROCm 7's headers dropped them, ROCm 6's and the host backend's still have
// them. hipRTC pre-includes this file; each name is defined only where the headers did not.
#pragma once
#ifndef hipThreadIdx_x
#define hipThreadIdx_x threadIdx.x
#endif
#ifndef hipThreadIdx_y
#define hipThreadIdx_y threadIdx.y
#endif
#ifndef hipThreadIdx_z
#define hipThreadIdx_z threadIdx.z
#endif
#ifndef hipBlockIdx_x
#define hipBlockIdx_x blockIdx.x
#endif
#ifndef hipBlockIdx_y
#define hipBlockIdx_y blockIdx.y
#endif
#ifndef hipBlockIdx_z
#define hipBlockIdx_z blockIdx.z
#endif
#ifndef hipBlockDim_x
#define hipBlockDim_x blockDim.x
#endif
#ifndef hipBlockDim_y
#define hipBlockDim_y blockDim.y
#endif
#ifndef hipBlockDim_z
#define hipBlockDim_z blockDim.z
#endif
#ifndef hipGridDim_x
#define hipGridDim_x gridDim.x
#endif
#ifndef hipGridDim_y
#define hipGridDim_y gridDim.y
#endif
#ifndef hipGridDim_z
#define hipGridDim_z gridDim.z
#endif
