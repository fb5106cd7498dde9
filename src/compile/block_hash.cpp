#include "compile/block_hash.h"

#include <algorithm>

#include "compile/cache_seal.h"
#include "util/parallel_for.h"

namespace hk {

size_t hash_blocks(size_t n) { return (n + kHashBlockBytes - 1) / kHashBlockBytes; }

uint64_t hash_block(const void* block, size_t index, size_t n) {
  const size_t begin = index * kHashBlockBytes;
  return bytes_hash(block, std::min(n - begin, kHashBlockBytes));
}

uint64_t combine_block_hashes(const std::vector<uint64_t>& blocks, size_t n) {
  std::vector<uint64_t> words = blocks;
  words.push_back(static_cast<uint64_t>(n));  // the length: a range and its zero-padded longer self differ
  return bytes_hash(words.data(), words.size() * sizeof(uint64_t));
}

uint64_t block_hash(const void* data, size_t n) {
  std::vector<uint64_t> blocks(hash_blocks(n));
  const char* bytes = static_cast<const char*>(data);
  parallel_chunks(static_cast<int64_t>(blocks.size()), 1, [&](int64_t b, int64_t, int64_t) {
    blocks[static_cast<size_t>(b)] = hash_block(bytes + static_cast<size_t>(b) * kHashBlockBytes, static_cast<size_t>(b), n);
  });
  return combine_block_hashes(blocks, n);
}

}  // namespace hk
