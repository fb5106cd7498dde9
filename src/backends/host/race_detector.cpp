#include "backends/host/race_detector.h"

#include "backends/host/source_line.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

namespace hk::host {
namespace {

constexpr uintptr_t kRaceGranule = 4;

// "file:line (function)" of a return address in a kernel library, or "function+0xOFFSET" when its
// line cannot be told.
std::string race_code_name(const void* code) {
  Dl_info info{};
  if (!code || !dladdr(code, &info) || !info.dli_sname) return fmt::format("{}", code);
  int status = 0;
  char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : info.dli_sname;
  std::free(demangled);
  if (const std::string line = source_line(code); !line.empty()) return fmt::format("{} ({})", line, name);
  return fmt::format("{}+{:#x}", name, reinterpret_cast<uintptr_t>(code) - reinterpret_cast<uintptr_t>(info.dli_saddr));
}

}  // namespace

void RaceDetector::begin_launch(const std::vector<Region>& globals, hk_host_dim3 grid, hk_host_dim3 block, int warp_size) {
  globals_.clear();
  for (const Region& r : globals) globals_.push_back(Shadow{r, std::vector<Cell>((r.bytes + kRaceGranule - 1) / kRaceGranule)});
  std::sort(globals_.begin(), globals_.end(), [](const Shadow& a, const Shadow& b) { return a.region.base < b.region.base; });
  grid_ = grid;
  block_dim_ = block;
  threads_ = static_cast<int>(block.x * block.y * block.z);
  warp_size_ = warp_size;
  sync_.clear();
  report_.reset();
}

void RaceDetector::begin_block(int64_t linear_block, hk_host_dim3 block_idx, const Region& dynamic_shared, const Region& static_shared) {
  block_ = linear_block;
  block_idx_ = block_idx;
  for (auto [shadow, region] : {std::pair{&dynamic_shared_, dynamic_shared}, std::pair{&static_shared_, static_shared}}) {
    shadow->region = region;
    shadow->cells.assign((region.bytes + kRaceGranule - 1) / kRaceGranule, Cell{});
  }
  const size_t n = static_cast<size_t>(threads_);
  clock_.assign(n, 0);
  block_sync_.assign(n, 0);
  warp_sync_.assign(n, 0);
  own_.assign(n, Knowledge{});
  block_knowledge_.clear();
  released_.assign(n, nullptr);
  block_released_.clear();
}

RaceDetector::Shadow* RaceDetector::shadow_of(uintptr_t a) {
  for (Shadow* s : {&dynamic_shared_, &static_shared_})
    if (a - s->region.base < s->region.bytes) return s;
  auto it = std::upper_bound(globals_.begin(), globals_.end(), a, [](uintptr_t x, const Shadow& s) { return x < s.region.base; });
  if (it == globals_.begin()) return nullptr;
  --it;
  return a - it->region.base < it->region.bytes ? &*it : nullptr;
}

RaceDetector::Clock RaceDetector::known(int thread, int64_t block, int other) const {
  Clock k = 0;
  for (const Knowledge* m : {&own_[static_cast<size_t>(thread)], &block_knowledge_}) {
    const auto it = m->find(block);
    if (it != m->end() && static_cast<size_t>(other) < it->second.size()) k = std::max(k, it->second[static_cast<size_t>(other)]);
  }
  return k;
}

bool RaceDetector::ordered(const Record& r, int thread) const {
  if (r.block == block_) {
    if (r.thread == thread) return true;
    if (r.clock < block_sync_[r.thread]) return true;
    if (r.thread / warp_size_ == thread / warp_size_ && r.clock < warp_sync_[r.thread]) return true;
  }
  return r.clock < known(thread, r.block, r.thread);
}

RaceAccess RaceDetector::side(const Record& r) const {
  RaceAccess a;
  const int64_t b = r.block;
  a.block = {static_cast<uint32_t>(b % grid_.x), static_cast<uint32_t>(b / grid_.x % grid_.y), static_cast<uint32_t>(b / (int64_t{grid_.x} * grid_.y))};
  const uint32_t t = r.thread;
  a.thread = {t % block_dim_.x, t / block_dim_.x % block_dim_.y, t / (block_dim_.x * block_dim_.y)};
  a.code = race_code_name(r.code);
  return a;
}

void RaceDetector::check(const Shadow& s, uintptr_t granule, const Record& earlier, bool earlier_write, const Record& now, bool now_write) {
  if (earlier.block < 0 || !(earlier.mask & now.mask) || ordered(earlier, now.thread)) return;
  if (report_) {
    ++report_->pairs;
    return;
  }
  RaceReport r;
  r.memory = s.region.memory;
  r.buffer = r.memory == "global" ? s.region.base : 0;
  r.offset = granule - s.region.base + static_cast<uint64_t>(__builtin_ctz(earlier.mask & now.mask));
  r.earlier = side(earlier);
  r.earlier.write = earlier_write;
  r.later = side(now);
  r.later.write = now_write;
  report_ = std::move(r);
}

void RaceDetector::access(int thread, uintptr_t address, size_t bytes, bool write, const void* code) {
  Shadow* s = shadow_of(address);
  if (!s || bytes == 0) return;
  const uintptr_t end = std::min(address + bytes, s->region.base + s->region.bytes);
  const Clock clock = clock_[static_cast<size_t>(thread)];
  // Region bases are 16-byte aligned, so granules never straddle a region's start.
  for (uintptr_t g = address / kRaceGranule * kRaceGranule; g < end; g += kRaceGranule) {
    const uintptr_t lo = std::max(g, address), hi = std::min(g + kRaceGranule, end);
    const uint8_t mask = static_cast<uint8_t>(((1u << (hi - g)) - 1) & ~((1u << (lo - g)) - 1));
    Cell& c = s->cells[(g - s->region.base) / kRaceGranule];
    const Record now{static_cast<int32_t>(block_), static_cast<uint16_t>(thread), mask, clock, code};
    check(*s, g, c.write, true, now, write);
    if (write) {
      check(*s, g, c.read, false, now, write);
      c.write = now;
      c.read = Record{};  // whatever that read races with later, this write does too, or it is ordered after both
    } else {
      c.read = now;
    }
  }
}

void RaceDetector::join(Knowledge& into, const Knowledge& from) {
  for (const auto& [block, clocks] : from) {
    std::vector<Clock>& mine = into[block];
    if (mine.size() < clocks.size()) mine.resize(clocks.size(), 0);
    for (size_t i = 0; i < clocks.size(); ++i) mine[i] = std::max(mine[i], clocks[i]);
  }
}

// What the thread knows now, as knowledge another block's thread can acquire.
void RaceDetector::fence(int thread) {
  const size_t me = static_cast<size_t>(thread);
  auto k = std::make_shared<Knowledge>(block_knowledge_);
  join(*k, own_[me]);
  std::vector<Clock> mine(static_cast<size_t>(threads_));
  for (int j = 0; j < threads_; ++j) {
    const size_t u = static_cast<size_t>(j);
    mine[u] = j == thread ? clock_[me] + 1 : (j / warp_size_ == thread / warp_size_ ? warp_sync_[u] : block_sync_[u]);
  }
  join(*k, Knowledge{{block_, std::move(mine)}});
  released_[me] = std::move(k);
  ++clock_[me];
}

// Acquires what earlier atomics on the location released, then releases what this thread knew
// at its last fence.
void RaceDetector::atomic(int thread, uintptr_t address) {
  const size_t me = static_cast<size_t>(thread);
  const auto it = sync_.find(address);
  if (it != sync_.end()) join(own_[me], it->second);
  if (released_[me]) join(sync_[address], *released_[me]);
  if (!block_released_.empty()) join(sync_[address], block_released_);
}

void RaceDetector::block_barrier() {
  for (size_t j = 0; j < clock_.size(); ++j) {
    block_sync_[j] = warp_sync_[j] = ++clock_[j];
    join(block_knowledge_, own_[j]);
    own_[j].clear();
    if (released_[j]) join(block_released_, *released_[j]);
  }
}

void RaceDetector::warp_barrier(int first, uint64_t lanes) {
  Knowledge known;
  for (int l = 0; l < 64; ++l) {
    if (!(lanes >> l & 1)) continue;
    const size_t u = static_cast<size_t>(first + l);
    warp_sync_[u] = ++clock_[u];
    join(known, own_[u]);
  }
  if (known.empty()) return;
  for (int l = 0; l < 64; ++l)
    if (lanes >> l & 1) own_[static_cast<size_t>(first + l)] = known;
}

std::optional<RaceReport> RaceDetector::take_report() {
  std::optional<RaceReport> r = std::move(report_);
  report_.reset();
  return r;
}

}  // namespace hk::host
