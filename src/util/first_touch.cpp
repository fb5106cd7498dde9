#include "util/first_touch.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>

#include "util/parallel_for.h"

namespace hk {
namespace {
constexpr size_t kPage = 4096;
constexpr size_t kParallelFrom = size_t{8} << 20;  // below this, one thread touches as fast
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

void first_touch(void* data, size_t bytes) {
  if (bytes < kParallelFrom) return;  // the vector's own zeroing is as fast
  char* p = static_cast<char*>(data);
  // Huge pages where the system gives them on request (a hint: an error only means no).
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  const int64_t pages = static_cast<int64_t>((bytes + kPage - 1) / kPage);
  parallel_chunks(pages, 256, [&](int64_t, int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) p[static_cast<size_t>(i) * kPage] = 0;
  });
}

}  // namespace hk
