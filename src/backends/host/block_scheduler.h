// Runs the threads of one GPU block on one OS thread, each as a cooperative fiber:
// a thread runs until it reaches a barrier (__syncthreads, a warp collective) or ends, and a
// barrier opens when every live thread it concerns has arrived. That is what makes shared
// memory, barriers and warp shuffles behave on the CPU as on a GPU. One scheduler is reused for
// every block an OS thread runs in a launch, and its stacks serve later launches (fiber_stacks.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/host/fiber_stacks.h"
#include "backends/host/fiber_switch.h"
#include "backends/host/race_detector.h"
#include "hk_host_abi.h"

namespace hk::host {

class BlockScheduler {
 public:
  using Entry = void (*)(void**);

  BlockScheduler(int threads_per_block, int warp_size, size_t stack_bytes);
  BlockScheduler(const BlockScheduler&) = delete;
  BlockScheduler& operator=(const BlockScheduler&) = delete;

  // Runs every thread of the block to its end. Throws std::runtime_error when the threads wait
  // at barriers that can never open (e.g. some at __syncthreads, others at a warp shuffle).
  void run(hk_host_dim3 block_idx, hk_host_dim3 block_dim, hk_host_dim3 grid_dim, void* dynamic_shared,
           Entry entry, void** args);

  // The first collective of the last block run that read a lane that had returned, or whose mask
  // named one, in words ("" when none): on a GPU its result is undefined (LaunchFinding).
  const std::string& collective_finding() const { return finding_; }

  // Under --races: the detector that hears every access and synchronisation of the fibers.
  void watch_races(RaceDetector* detector) { races_ = detector; }

  // The services a kernel's built-ins call; they find the running fiber through thread-local state.
  static hk_host_runtime runtime(int warp_size);

 private:
  enum class State { runnable, at_block_barrier, at_warp_barrier, done };
  struct Fiber {
    FiberContext context;
    hk_host_thread thread;
    State state = State::runnable;
    // The warp collective it waits at: the lanes it waits for (its own included), what kind,
    // the lane it reads; the scheduler sets `result` when it opens the collective.
    uint64_t members = 0;
    enum class Kind { sync, exchange, ballot } kind = Kind::sync;
    int src_lane = 0;
    uint64_t result = 0;
    uint64_t collectives = 0;  // warp collectives it has entered: a lane with fewer left before the current one
    const char* barrier_site = "";  // the __syncthreads it waits at ("file:line")
  };

  static void fiber_main();
  static hk_host_thread* current();
  static void sync_block(const char* site);
  static void sync_warp(uint64_t members);
  static uint64_t exchange(uint64_t value, int src_lane, uint64_t members, const hk_host_site* site);
  static uint64_t ballot(int predicate, uint64_t mask, const hk_host_site* site);
  void note_returned_lanes(const hk_host_site* site, int lane, uint64_t returned, const char* how);
  bool returned_before(int thread, uint64_t collective) const;
  static void race_access(const void* address, uint64_t bytes, int is_write, const void* code);
  static void race_atomic(const void* address);
  static void race_fence();
  static int race_thread();  // the running fiber's index, or -1 outside a launch
  void yield(State waiting);
  void wait_in_warp(Fiber* f, uint64_t members, Fiber::Kind kind, uint64_t value, int src_lane);
  uint64_t lanes_of_warp(int warp) const;
  bool release_warp(int warp);
  void open_collective(int warp, uint64_t lanes);
  Fiber* runnable_from(size_t i);
  void switch_onward(FiberContext& from, Fiber* f);
  bool release_barriers();
  [[noreturn]] void deadlock() const;
  void check_one_barrier_site() const;

  int threads_, warp_size_, warps_;
  FiberStacks stacks_;
  std::vector<Fiber> fibers_;
  // What each thread offers at the warp collective it waits at. Results are taken from it when
  // the collective opens, before any lane that takes part can offer again.
  std::vector<uint64_t> slots_;
  FiberContext scheduler_context_;
  int live_ = 0;
  Entry entry_ = nullptr;
  void** args_ = nullptr;
  hk_host_dim3 block_idx_{};
  RaceDetector* races_ = nullptr;
  std::string finding_;
};

}  // namespace hk::host
