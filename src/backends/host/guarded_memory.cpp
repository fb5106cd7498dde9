#include "backends/host/guarded_memory.h"

#include <algorithm>
#include <sys/mman.h>
#include <unistd.h>

namespace hk::host {

GuardedBlock guarded_alloc(size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;  // the alignment a GPU allocation has
  const size_t pages = (rounded + page - 1) / page * page;
  // One page before, 64 KiB after: address space only (PROT_NONE, never backed).
  const size_t after = std::max<size_t>(page, 64 * 1024);
  const size_t length = page + pages + after;
  void* base = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return {};
  char* usable = static_cast<char*>(base) + page;
  if (mprotect(usable, pages, PROT_READ | PROT_WRITE) != 0) {
    munmap(base, length);
    return {};
  }
  return GuardedBlock{usable + (pages - rounded), base, length};
}

void guarded_free(const GuardedBlock& block) {
  if (block.base) munmap(block.base, block.length);
}

}  // namespace hk::host
