#include "backends/host/fiber_stacks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace hk::host {
namespace {

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

struct Mapping {
  void* map;
  int count;
  size_t bytes;
};

// Mappings given back, for launches to come. Bounded: one per OS thread that runs blocks at a
// time is all a launch can use again; memory beyond that goes back to the system.
constexpr size_t kKept = 64;
std::mutex pool_mu;
std::vector<Mapping>& pool() {
  static std::vector<Mapping> p;
  return p;
}

size_t stride(size_t bytes) { return bytes + page_size(); }

void* map_stacks(int count, size_t bytes) {
  const size_t page = page_size(), total = static_cast<size_t>(count) * stride(bytes);
  void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::runtime_error(fmt::format("cannot map {} bytes of fiber stacks", total));
  // Each stack has a guard page below it, so an overflow is a SIGSEGV (a CRASH), not corruption.
  for (int i = 0; i < count; ++i) {
    if (mprotect(static_cast<char*>(m) + static_cast<size_t>(i) * stride(bytes), page, PROT_NONE) != 0) {
      munmap(m, total);
      throw std::runtime_error("cannot protect the guard page of a fiber stack");
    }
  }
  return m;
}

}  // namespace

FiberStacks::FiberStacks(int count, size_t bytes) : count_(count) {
  const size_t page = page_size();
  bytes_ = (bytes + page - 1) / page * page;
  {
    std::lock_guard<std::mutex> lock(pool_mu);
    auto& p = pool();
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i].bytes != bytes_ || p[i].count < count) continue;
      map_ = p[i].map;
      count_ = p[i].count;  // a larger mapping serves a smaller block and keeps its size
      p.erase(p.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  map_ = map_stacks(count, bytes_);
}

FiberStacks::~FiberStacks() {
  if (!map_) return;
  std::lock_guard<std::mutex> lock(pool_mu);
  if (pool().size() < kKept) {
    pool().push_back({map_, count_, bytes_});
    return;
  }
  munmap(map_, static_cast<size_t>(count_) * stride(bytes_));
}

void* FiberStacks::base(int i) const { return static_cast<char*>(map_) + static_cast<size_t>(i) * stride(bytes_) + page_size(); }

}  // namespace hk::host
