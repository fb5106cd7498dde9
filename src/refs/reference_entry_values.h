// How a reference cache entry (reference_cache.h) stores one tensor's values: as floats when
// every double of the tensor is a float exactly, bit for bit (a copy, a mask, values rounded to
// f32 or narrower), else as the doubles themselves. The biggest outputs of the corpus are such
// copies: stored as floats they take half the disk, fit the cache's bound and read back in half
// the time. What is read back is the same doubles in every case.
//
// Values are hashed, written and read in blocks of block_hash (block_hash.h) over their stored
// bytes, several blocks at a time, each hashed while it is in cache.
#pragma once

#include <cstdint>
#include <string>

namespace hk {

// Bytes per stored value of the n doubles at v: 4 when each is a float exactly, else 8.
int stored_width(const double* v, int64_t n);

// block_hash of the n values at v as they are stored with `width` bytes each.
uint64_t stored_hash(const double* v, int64_t n, int width);

// Appends the n values at v to fd, `width` bytes each (a width of 4 only for values that
// stored_width found exact); false on a write error.
bool write_stored(int fd, const double* v, int64_t n, int width);

// Reads n values stored with `width` bytes each at offset `at` of fd into dst, as doubles: "" when
// their stored bytes match hash, else why not (dst then holds garbage).
std::string read_stored(int fd, double* dst, int64_t n, int width, uint64_t at, uint64_t hash);

// n bytes at offset `at` of fd into dst; false on an error or an early end of the file.
bool read_at(int fd, char* dst, size_t n, uint64_t at);
// All n bytes of src to fd; false on an error.
bool write_all(int fd, const char* src, size_t n);

}  // namespace hk
