#include "backends/host/guarded_memory.h"

#include <algorithm>
#include <sys/mman.h>
#include <unistd.h>

namespace hk::host {
namespace {

size_t system_page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
size_t rounded_bytes(size_t bytes) { return (std::max<size_t>(bytes, 1) + 255) / 256 * 256; }  // the alignment a GPU allocation has

// fd < 0: anonymous private memory; else the file's first guarded_file_bytes(bytes), shared.
GuardedBlock map_guarded(size_t bytes, int fd) {
  const size_t page = system_page();
  const size_t pages = guarded_file_bytes(bytes);
  // One page before, 64 KiB after: address space only (PROT_NONE, never backed).
  const size_t after = std::max<size_t>(page, 64 * 1024);
  const size_t length = page + pages + after;
  void* base = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return {};
  char* usable = static_cast<char*>(base) + page;
  const bool ok = fd < 0 ? mprotect(usable, pages, PROT_READ | PROT_WRITE) == 0
                         : mmap(usable, pages, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
  if (!ok) {
    munmap(base, length);
    return {};
  }
  return GuardedBlock{usable + guarded_data_offset(bytes), base, length, bytes};
}

}  // namespace

size_t guarded_file_bytes(size_t bytes) {
  const size_t page = system_page();
  return (rounded_bytes(bytes) + page - 1) / page * page;
}

size_t guarded_data_offset(size_t bytes) { return guarded_file_bytes(bytes) - rounded_bytes(bytes); }

size_t guarded_slack_before(size_t bytes) { return guarded_data_offset(bytes); }
size_t guarded_slack_after(size_t bytes) { return rounded_bytes(bytes) - bytes; }

GuardedBlock guarded_alloc(size_t bytes) { return map_guarded(bytes, -1); }

GuardedBlock guarded_map(int fd, size_t bytes) { return fd < 0 ? GuardedBlock{} : map_guarded(bytes, fd); }

void guarded_free(const GuardedBlock& block) {
  if (block.base) munmap(block.base, block.length);
}

}  // namespace hk::host
