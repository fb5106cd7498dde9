#include "worker/worker_heap.h"

#include <malloc.h>

#include <fstream>
#include <string>

#include "process/memory_limit.h"

namespace hk {
namespace {

// MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read (then only the share counts).
uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace

void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);  // -1: never trim on free (mallopt(3))
}

uint64_t freed_memory_kept() { return mallinfo2().fordblks; }

bool release_freed_memory_beyond(uint64_t keep_at_most, uint64_t min_available) {
  const uint64_t available = min_available > 0 ? available_memory() : 0;
  const bool short_of_memory = available > 0 && available < min_available;
  if (!short_of_memory && freed_memory_kept() <= keep_at_most) return false;
  malloc_trim(0);
  return true;
}

bool release_freed_memory_when_short() {
  const uint64_t physical = physical_memory();
  if (physical == 0) return false;
  return release_freed_memory_beyond(physical / 8, physical / 4);
}

}  // namespace hk
