// cub's BlockLoad on the host backend: not provided (BlockReduce, BlockScan and WarpReduce are).
#pragma once
#error "cub's BlockLoad is not supported by the hkcheck host backend (its BlockReduce, BlockScan and WarpReduce are); mark the kernel \"gpu_only\" in its manifest"
