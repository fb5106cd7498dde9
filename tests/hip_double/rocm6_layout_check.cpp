// Compiled against ROCm 6+ headers when the build finds some (the hipRTC folder .ci/fetch-hiprtc
// makes holds them): the R0600 layout hkcheck reads and the double writes must be theirs.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>

#include <cstddef>

#include "backends/hip_device_props.h"

static_assert(HIP_VERSION_MAJOR >= 6, "these headers are not ROCm 6 or later");
static_assert(sizeof(hipDeviceProp_tR0600) == hk::kHipPropsR0600.size);
static_assert(offsetof(hipDeviceProp_tR0600, name) == hk::kHipPropsR0600.name);
static_assert(offsetof(hipDeviceProp_tR0600, totalGlobalMem) == hk::kHipPropsR0600.total_global_mem);
static_assert(offsetof(hipDeviceProp_tR0600, sharedMemPerBlock) == hk::kHipPropsR0600.shared_mem_per_block);
static_assert(offsetof(hipDeviceProp_tR0600, warpSize) == hk::kHipPropsR0600.warp_size);
static_assert(offsetof(hipDeviceProp_tR0600, maxThreadsPerBlock) == hk::kHipPropsR0600.max_threads_per_block);
static_assert(offsetof(hipDeviceProp_tR0600, maxThreadsDim) == hk::kHipPropsR0600.max_threads_dim);
static_assert(offsetof(hipDeviceProp_tR0600, maxGridSize) == hk::kHipPropsR0600.max_grid_size);
static_assert(offsetof(hipDeviceProp_tR0600, multiProcessorCount) == hk::kHipPropsR0600.multi_processor_count);
static_assert(offsetof(hipDeviceProp_tR0600, gcnArchName) == hk::kHipPropsR0600.gcn_arch_name);
