// Fresh big buffers with their pages faulted in by several threads. A page's first write traps
// into the kernel, which zeroes the page: for a buffer of gigabytes that costs more than filling
// it, and std::vector's constructor does it on one thread. Here the threads of parallel_chunks
// touch every page first (and the buffer asks for huge pages where the system gives them on
// request), so the vector's own zeroing then runs at memory speed.
#pragma once

#include <cstddef>
#include <vector>

namespace hk {

// Writes a zero into every page of [data, data + bytes), from several threads when it is big.
void first_touch(void* data, size_t bytes);

// n value-initialized (zero) elements, their pages first touched in parallel.
template <class T>
std::vector<T> touched_vector(size_t n) {
  std::vector<T> v;
  v.reserve(n);
  first_touch(v.data(), n * sizeof(T));  // allocated storage of a trivial type, written through the pointer
  v.resize(n);
  return v;
}

}  // namespace hk
