// The host backend's happens-before race detector (--races). A kernel compiled with the
// compiler's thread-sanitizer instrumentation reports every load, store, atomic and fence
// (hk_host_races.c); this keeps, for each 4-byte granule of the watched memory (every guarded
// buffer, the block's dynamic and static shared memory), the last write and the last read, with
// the simulated GPU thread and its clock. An access that conflicts with a recorded one (same
// bytes, one of them a write) that does not happen before it is a race.
//
// What orders two accesses:
// - the same thread (program order);
// - __syncthreads (and the votes built on it) between them, for threads of one block; a warp
//   collective (__syncwarp, shuffles, ballots, tile syncs), for lanes of one warp;
// - across blocks, and beyond barriers: a thread's __threadfence, then an atomic on a location by
//   it or (after a barrier) by any thread of its block, then another thread's atomic on that
//   location: what the first thread saw before its fence happens before what the second does
//   after its atomic (the last-block-done pattern). An atomic without a fence before it releases
//   nothing: GPU atomics are relaxed;
// - launches: each launch starts with empty records.
// Fibers of a block never interleave between a load and a store, so the detector never looks at
// values, only at this order; the host runs the launch's blocks one after another on one OS thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hk_host_abi.h"
#include "contracts/race_report.h"

namespace hk::host {

class RaceDetector {
 public:
  struct Region {
    uintptr_t base = 0;
    size_t bytes = 0;
    std::string memory = "global";  // as RaceReport::memory names it
  };

  // A launch: the global buffers it can reach, its shape.
  void begin_launch(const std::vector<Region>& globals, hk_host_dim3 grid, hk_host_dim3 block, int warp_size);
  // A block starts: its shared memory starts with no records.
  void begin_block(int64_t linear_block, hk_host_dim3 block_idx, const Region& dynamic_shared, const Region& static_shared);

  void access(int thread, uintptr_t address, size_t bytes, bool write, const void* code);
  void atomic(int thread, uintptr_t address);
  void fence(int thread);
  void block_barrier();                   // every thread of the block passed a __syncthreads
  void warp_barrier(int first, uint64_t lanes);  // threads first + l, each lane l of `lanes`, passed a warp collective

  // The first race of the launch (its count of racing pairs in `pairs`), or none.
  std::optional<RaceReport> take_report();

 private:
  using Clock = uint32_t;
  // block -> for each of its threads, a clock such that that thread's accesses before it are known
  using Knowledge = std::map<int64_t, std::vector<Clock>>;
  struct Record {
    int32_t block = -1;  // -1: none
    uint16_t thread = 0;
    uint8_t mask = 0;  // the bytes of the granule it touched
    Clock clock = 0;
    const void* code = nullptr;
  };
  struct Cell {
    Record write, read;
  };
  struct Shadow {
    Region region;
    std::vector<Cell> cells;
  };

  Shadow* shadow_of(uintptr_t address);
  bool ordered(const Record& r, int thread) const;
  Clock known(int thread, int64_t block, int other) const;
  void check(const Shadow& s, uintptr_t granule, const Record& earlier, bool earlier_write, const Record& now, bool now_write);
  RaceAccess side(const Record& r) const;
  static void join(Knowledge& into, const Knowledge& from);

  std::vector<Shadow> globals_;  // sorted by base
  Shadow dynamic_shared_, static_shared_;
  hk_host_dim3 grid_{}, block_dim_{}, block_idx_{};
  int threads_ = 0, warp_size_ = 32;
  int64_t block_ = 0;
  std::vector<Clock> clock_, block_sync_, warp_sync_;
  std::vector<Knowledge> own_;        // what each thread learnt by atomics since the last barrier
  Knowledge block_knowledge_;         // what every thread of the block knows
  std::vector<std::shared_ptr<const Knowledge>> released_;  // each thread's knowledge at its last fence
  // What the block's threads had fenced before the last barrier: fences are cumulative, so an
  // atomic after the barrier releases it whichever thread does the atomic (each thread stores
  // its part, fences, __syncthreads, thread 0 counts the block in).
  Knowledge block_released_;
  std::unordered_map<uintptr_t, Knowledge> sync_;  // what atomics on each location carry
  std::optional<RaceReport> report_;
};

}  // namespace hk::host
