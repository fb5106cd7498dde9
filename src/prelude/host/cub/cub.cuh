// cub on the host backend: its block collectives (BlockReduce, BlockScan, BlockLoad, BlockStore,
// BlockRadixSort) and warp collectives (WarpReduce, WarpScan), one header each as in cub. The
// rest (BlockExchange, histograms, merge sort, the device-wide algorithms) is not provided: a
// kernel that uses it does not compile, naming the missing name.
#pragma once
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
