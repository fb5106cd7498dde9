// cub on the host backend: its block and warp reductions and the block scan
// (cub/block/block_reduce.cuh, cub/block/block_scan.cuh, cub/warp/warp_reduce.cuh). The rest
// (BlockLoad, BlockStore, radix sort, the device-wide algorithms) is not provided: a kernel that
// uses it does not compile, naming the missing name.
#pragma once
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
