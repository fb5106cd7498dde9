// <cub/cub.cuh> under NVRTC: cub's block, warp and thread layers, its iterators and utilities, from
// the toolkit's own headers. The toolkit's umbrella header also pulls in the device-wide
// algorithms (cub/device/), which are host code (they launch kernels through Thrust's launcher)
// and do not compile under NVRTC; a kernel file uses them only in its host part, which hkcheck
// leaves out of the compile. Each header is included when the toolkit has it (the set differs
// between CUDA versions).
#pragma once

#if __has_include(<cub/config.cuh>)
#include <cub/config.cuh>
#endif
#include <cub/util_type.cuh>
#include <cub/util_ptx.cuh>
#if __has_include(<cub/util_debug.cuh>)
#include <cub/util_debug.cuh>
#endif
#if __has_include(<cub/util_temporary_storage.cuh>)
#include <cub/util_temporary_storage.cuh>
#endif

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_adjacent_difference.cuh>
#if __has_include(<cub/block/block_merge_sort.cuh>)
#include <cub/block/block_merge_sort.cuh>
#endif
#if __has_include(<cub/block/block_shuffle.cuh>)
#include <cub/block/block_shuffle.cuh>
#endif
#if __has_include(<cub/block/block_run_length_decode.cuh>)
#include <cub/block/block_run_length_decode.cuh>
#endif

#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#if __has_include(<cub/warp/warp_load.cuh>)
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#endif
#if __has_include(<cub/warp/warp_merge_sort.cuh>)
#include <cub/warp/warp_merge_sort.cuh>
#endif

#include <cub/thread/thread_load.cuh>
#include <cub/thread/thread_store.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>

#include <cub/grid/grid_even_share.cuh>
#include <cub/grid/grid_mapping.cuh>
#include <cub/grid/grid_queue.cuh>

#include <cub/iterator/arg_index_input_iterator.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cub/iterator/cache_modified_output_iterator.cuh>

// Device code that names a device-wide algorithm gets an error that says why, e.g.
// 'class "cub::hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only" has no
// member "Sum"', instead of cub's header failing deep inside Thrust.
namespace cub {
struct hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only {};
using DeviceAdjacentDifference = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceCopy = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceFor = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceHistogram = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceMemcpy = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceMerge = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceMergeSort = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DevicePartition = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceRadixSort = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceReduce = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceRunLengthEncode = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceScan = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceSegmentedRadixSort = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceSegmentedReduce = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceSegmentedSort = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceSelect = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
using DeviceTransform = hk_device_wide_algorithms_are_host_code_and_NVRTC_compiles_device_code_only;
}  // namespace cub
