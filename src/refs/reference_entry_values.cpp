#include "refs/reference_entry_values.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "compile/block_hash.h"
#include "util/parallel_for.h"

namespace hk {
namespace {

bool float_exact(double v) {
  const double back = static_cast<double>(static_cast<float>(v));
  return std::memcmp(&v, &back, sizeof v) == 0;  // bits: -0.0 stays -0.0, a NaN keeps its payload or is refused
}

// Calls fn(block, first value, values) for each hash block of n values stored `width` bytes each.
template <class Fn>
void for_each_block(int64_t n, int width, bool parallel, Fn&& fn) {
  const int64_t per_block = static_cast<int64_t>(kHashBlockBytes) / width;
  const int64_t blocks = static_cast<int64_t>(hash_blocks(static_cast<size_t>(n) * static_cast<size_t>(width)));
  const auto one = [&](int64_t b) { fn(b, b * per_block, std::min(per_block, n - b * per_block)); };
  if (parallel) parallel_chunks(blocks, 1, [&](int64_t b, int64_t, int64_t) { one(b); });
  else
    for (int64_t b = 0; b < blocks; ++b) one(b);
}

void to_floats(const double* v, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(v[i]);
}

}  // namespace

bool read_at(int fd, char* dst, size_t n, uint64_t at) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, dst, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    dst += got, n -= static_cast<size_t>(got), at += static_cast<uint64_t>(got);
  }
  return true;
}

bool write_all(int fd, const char* src, size_t n) {
  while (n > 0) {
    const ssize_t put = ::write(fd, src, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    src += put, n -= static_cast<size_t>(put);
  }
  return true;
}

int stored_width(const double* v, int64_t n) {
  std::atomic<bool> exact{true};
  parallel_chunks(n, kElementChunk, [&](int64_t, int64_t b, int64_t e) {
    for (int64_t i = b; i < e && exact.load(std::memory_order_relaxed); ++i)
      if (!float_exact(v[i])) exact = false;
  });
  return exact ? 4 : 8;
}

uint64_t stored_hash(const double* v, int64_t n, int width) {
  const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(width);
  if (width == 8) return block_hash(v, bytes);
  std::vector<uint64_t> blocks(hash_blocks(bytes));
  for_each_block(n, width, true, [&](int64_t b, int64_t first, int64_t count) {
    std::vector<float> stored(static_cast<size_t>(count));
    to_floats(v + first, count, stored.data());
    blocks[static_cast<size_t>(b)] = hash_block(stored.data(), static_cast<size_t>(b), bytes);
  });
  return combine_block_hashes(blocks, bytes);
}

bool write_stored(int fd, const double* v, int64_t n, int width) {
  if (width == 8) return write_all(fd, reinterpret_cast<const char*>(v), static_cast<size_t>(n) * sizeof(double));
  std::vector<float> stored;
  bool ok = true;
  for_each_block(n, width, false, [&](int64_t, int64_t first, int64_t count) {
    stored.resize(static_cast<size_t>(count));
    to_floats(v + first, count, stored.data());
    ok = ok && write_all(fd, reinterpret_cast<const char*>(stored.data()), stored.size() * sizeof(float));
  });
  return ok;
}

std::string read_stored(int fd, double* dst, int64_t n, int width, uint64_t at, uint64_t hash) {
  const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(width);
  std::vector<uint64_t> blocks(hash_blocks(bytes));
  std::atomic<bool> readable{true};
  for_each_block(n, width, true, [&](int64_t b, int64_t first, int64_t count) {
    const uint64_t from = at + static_cast<uint64_t>(first) * static_cast<uint64_t>(width);
    const size_t len = static_cast<size_t>(count) * static_cast<size_t>(width);
    if (width == 8) {  // straight into place
      char* out = reinterpret_cast<char*>(dst + first);
      if (!read_at(fd, out, len, from)) readable = false;
      else blocks[static_cast<size_t>(b)] = hash_block(out, static_cast<size_t>(b), bytes);
      return;
    }
    std::vector<float> stored(static_cast<size_t>(count));
    if (!read_at(fd, reinterpret_cast<char*>(stored.data()), len, from)) {
      readable = false;
      return;
    }
    blocks[static_cast<size_t>(b)] = hash_block(stored.data(), static_cast<size_t>(b), bytes);
    for (int64_t i = 0; i < count; ++i) dst[first + i] = static_cast<double>(stored[static_cast<size_t>(i)]);
  });
  if (!readable) return "its outputs could not be read whole";
  if (combine_block_hashes(blocks, bytes) != hash) return "its outputs differ from its header's hash";
  return "";
}

}  // namespace hk
