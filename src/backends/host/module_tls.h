// Where a loaded kernel library's thread-local storage lies for the calling thread. On the host,
// a kernel's static __shared__ arrays are thread_local variables of its library (hk_host.h), so
// this block is the static shared memory of the block the thread runs; the race detector
// watches it (race_detector.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hk::host {

struct ModuleTls {
  uintptr_t base = 0;
  size_t bytes = 0;  // 0: the library has no thread-local storage
};

// Allocates the calling thread's block when it has none yet. library: a dlopen handle.
ModuleTls module_tls(void* library);

}  // namespace hk::host
