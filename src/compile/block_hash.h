// A 64-bit hash of a big byte range at memory speed: the range is cut into fixed blocks, each
// block hashed on its own (bytes_hash, cache_seal.h) on up to parallel_threads() threads, and the
// block hashes combined in order. The cut depends on the size alone, so the value is the same
// whatever the thread count. It finds accidents (a torn or edited file); it is not cryptographic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hk {

constexpr size_t kHashBlockBytes = size_t{1} << 22;

// The number of blocks a range of n bytes is cut into (0 for an empty range).
size_t hash_blocks(size_t n);

// One block's hash: block `index` of a range of n bytes, whose bytes start at `block`.
uint64_t hash_block(const void* block, size_t index, size_t n);

// The hash of a range of n bytes from the hashes of its blocks, in order.
uint64_t combine_block_hashes(const std::vector<uint64_t>& blocks, size_t n);

// hash_block of every block, in parallel, then combined.
uint64_t block_hash(const void* data, size_t n);

}  // namespace hk
