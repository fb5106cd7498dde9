#include "backends/host/guarded_memory.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace hk::host {
namespace {

std::mutex live_mu;
std::map<const void*, size_t>& live() {
  static std::map<const void*, size_t> blocks;
  return blocks;
}

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
  const GuardedBlock block{usable + guarded_data_offset(bytes), base, length, bytes};
  std::lock_guard<std::mutex> lock(live_mu);
  live()[block.data] = bytes;
  return block;
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
  if (!block.base) return;
  {
    std::lock_guard<std::mutex> lock(live_mu);
    live().erase(block.data);
  }
  munmap(block.base, block.length);
}

std::vector<std::pair<const void*, size_t>> live_guarded_blocks() {
  std::lock_guard<std::mutex> lock(live_mu);
  return {live().begin(), live().end()};
}

}  // namespace hk::host
