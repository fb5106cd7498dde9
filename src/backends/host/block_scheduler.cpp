#include "backends/host/block_scheduler.h"

#include <cstring>

#include <fmt/format.h>
#include <stdexcept>

namespace hk::host {
namespace {

thread_local BlockScheduler* tls_scheduler = nullptr;
thread_local void* tls_fiber = nullptr;  // BlockScheduler::Fiber*, private type

}  // namespace

BlockScheduler::BlockScheduler(int threads_per_block, int warp_size, size_t stack_bytes)
    : threads_(threads_per_block),
      warp_size_(warp_size),
      warps_((threads_per_block + warp_size - 1) / warp_size),
      stacks_(threads_per_block, stack_bytes),
      fibers_(static_cast<size_t>(threads_per_block)) {
  slots_.assign(static_cast<size_t>(warps_ * warp_size_), 0);
}

void BlockScheduler::run(hk_host_dim3 block_idx, hk_host_dim3 block_dim, hk_host_dim3 grid_dim, void* dynamic_shared,
                         Entry entry, void** args) {
  entry_ = entry;
  args_ = args;
  block_idx_ = block_idx;
  finding_.clear();
  live_ = threads_;
  for (int i = 0; i < threads_; ++i) {
    Fiber& f = fibers_[static_cast<size_t>(i)];
    const unsigned u = static_cast<unsigned>(i);
    f.thread.thread_idx = {u % block_dim.x, u / block_dim.x % block_dim.y, u / (block_dim.x * block_dim.y)};
    f.thread.block_idx = block_idx;
    f.thread.block_dim = block_dim;
    f.thread.grid_dim = grid_dim;
    f.thread.dynamic_shared = dynamic_shared;
    f.thread.lane = i % warp_size_;
    f.thread.warp = i / warp_size_;
    f.state = State::runnable;
    f.collectives = 0;
    fiber_prepare(f.context, stacks_.base(i), stacks_.bytes(), &BlockScheduler::fiber_main);
  }
  tls_scheduler = this;
  for (;;) {
    // A round: the runnable fibers in order, each handing over to the next (switch_onward);
    // control comes back here when the last of them stops.
    if (Fiber* first = runnable_from(0)) {
      tls_fiber = first;
      fiber_switch(scheduler_context_, first->context);
    }
    tls_fiber = nullptr;
    if (live_ == 0) break;
    if (!release_barriers()) deadlock();
  }
  tls_scheduler = nullptr;
}

void BlockScheduler::fiber_main() {
  BlockScheduler* s = tls_scheduler;
  s->entry_(s->args_);
  Fiber* f = static_cast<Fiber*>(tls_fiber);
  f->state = State::done;
  --s->live_;
  FiberContext finished;
  s->switch_onward(finished, f);  // for good: a done fiber is never resumed
  __builtin_unreachable();
}

// The first runnable fiber from index i on, or null.
BlockScheduler::Fiber* BlockScheduler::runnable_from(size_t i) {
  for (; i < fibers_.size(); ++i)
    if (fibers_[i].state == State::runnable) return &fibers_[i];
  return nullptr;
}

// Leaves fiber f (saving it into from) for the next runnable fiber of the round, directly: a
// switch through the scheduler and back cost twice as much, and a block of 1024 threads switches
// at every barrier and shuffle. The scheduler gets control when the round has no fiber left.
void BlockScheduler::switch_onward(FiberContext& from, Fiber* f) {
  Fiber* next = runnable_from(static_cast<size_t>(f - fibers_.data()) + 1);
  if (!next) {
    fiber_switch(from, scheduler_context_);
    return;
  }
  tls_fiber = next;
  fiber_switch(from, next->context);
}

// Opens the barriers whose every live participant has arrived; false when none can open.
bool BlockScheduler::release_barriers() {
  bool released = false;
  for (int w = 0; w < warps_; ++w) released |= release_warp(w);
  if (released) return true;
  int at_block = 0;
  for (const Fiber& f : fibers_) {
    if (f.state == State::at_block_barrier) ++at_block;
    else if (f.state != State::done) return false;
  }
  if (at_block == 0) return false;
  check_one_barrier_site();
  for (Fiber& f : fibers_)
    if (f.state == State::at_block_barrier) f.state = State::runnable;
  if (races_) races_->block_barrier();
  return true;
}

// Every thread at a block barrier must be at the same __syncthreads: on a GPU, threads of one
// block waiting at two different ones is undefined (it hangs, or they pass each other).
void BlockScheduler::check_one_barrier_site() const {
  const char* first = nullptr;
  const char* other = nullptr;
  int at_first = 0, elsewhere = 0;
  for (const Fiber& f : fibers_) {
    if (f.state != State::at_block_barrier) continue;
    if (!first) first = f.barrier_site;
    if (f.barrier_site == first || std::strcmp(f.barrier_site, first) == 0) {
      ++at_first;
    } else {
      ++elsewhere;
      other = f.barrier_site;
    }
  }
  if (elsewhere == 0) return;
  throw std::runtime_error(fmt::format(
      "divergent barrier in block ({},{},{}): {} threads wait at the __syncthreads of {} and {} at the one of {}; on a GPU "
      "this hangs or is undefined",
      block_idx_.x, block_idx_.y, block_idx_.z, at_first, first, elsewhere, other));
}

void BlockScheduler::deadlock() const {
  int at_block = 0, at_warp = 0, done = 0;
  for (const Fiber& f : fibers_) {
    at_block += f.state == State::at_block_barrier;
    at_warp += f.state == State::at_warp_barrier;
    done += f.state == State::done;
  }
  throw std::runtime_error(fmt::format(
      "barrier deadlock in block ({},{},{}): {} threads wait at __syncthreads, {} at a warp collective, {} have ended; "
      "on a GPU this hangs or is undefined",
      block_idx_.x, block_idx_.y, block_idx_.z, at_block, at_warp, done));
}

void BlockScheduler::yield(State waiting) {
  Fiber* f = static_cast<Fiber*>(tls_fiber);
  f->state = waiting;
  switch_onward(f->context, f);
}

hk_host_thread* BlockScheduler::current() { return &static_cast<Fiber*>(tls_fiber)->thread; }

void BlockScheduler::sync_block(const char* site) {
  static_cast<Fiber*>(tls_fiber)->barrier_site = site;
  tls_scheduler->yield(State::at_block_barrier);
}

// The lanes of warp w that exist in this block, as a mask.
uint64_t BlockScheduler::lanes_of_warp(int w) const {
  const int n = std::min(warp_size_, threads_ - w * warp_size_);
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Opens, in warp w, every collective whose lanes have all arrived (or ended); a lane whose
// members wait elsewhere (at __syncthreads) keeps waiting, as on the GPU.
bool BlockScheduler::release_warp(int w) {
  const int first = w * warp_size_;
  const uint64_t lanes = lanes_of_warp(w);
  uint64_t waiting = 0, live = 0;
  for (int l = 0; l < warp_size_ && (lanes >> l & 1); ++l) {
    const State st = fibers_[static_cast<size_t>(first + l)].state;
    waiting |= uint64_t{st == State::at_warp_barrier} << l;
    live |= uint64_t{st != State::done} << l;
  }
  uint64_t opened = 0;
  for (int l = 0; l < warp_size_ && (lanes >> l & 1); ++l)
    if ((waiting >> l & 1) && !(opened >> l & 1)) {
      const uint64_t group = fibers_[static_cast<size_t>(first + l)].members & lanes & waiting;
      if ((fibers_[static_cast<size_t>(first + l)].members & lanes & live & ~waiting) != 0) continue;
      open_collective(w, group);
      opened |= group;
    }
  return opened != 0;
}

// Hands each lane of `group` (all waiting in warp w) its result, then lets them run.
void BlockScheduler::open_collective(int w, uint64_t group) {
  const int first = w * warp_size_;
  uint64_t predicates = 0;
  for (int l = 0; l < warp_size_; ++l)
    if ((group >> l & 1) && slots_[static_cast<size_t>(first + l)]) predicates |= uint64_t{1} << l;
  for (int l = 0; l < warp_size_; ++l) {
    if (!(group >> l & 1)) continue;
    Fiber& f = fibers_[static_cast<size_t>(first + l)];
    const int src = f.src_lane;
    if (f.kind == Fiber::Kind::ballot) f.result = predicates;
    else if (f.kind == Fiber::Kind::exchange)
      f.result = src < 0 || src >= warp_size_ || first + src >= threads_ ? slots_[static_cast<size_t>(first + l)]
                                                                          : slots_[static_cast<size_t>(first + src)];
    f.state = State::runnable;
  }
  if (races_) races_->warp_barrier(first, group);
}

// Offers a value at a warp collective and waits until the scheduler opens it. CUDA's full mask
// (lanes 0-31) means the whole warp on a warp of 64 too, as 0 does.
void BlockScheduler::wait_in_warp(Fiber* f, uint64_t members, Fiber::Kind kind, uint64_t value, int src_lane) {
  const bool whole = members == 0 || (members & 0xffffffffull) == 0xffffffffull;
  f->members = (whole ? ~uint64_t{0} : members) | uint64_t{1} << f->thread.lane;
  f->kind = kind;
  f->src_lane = src_lane;
  slots_[static_cast<size_t>(f->thread.warp * warp_size_ + f->thread.lane)] = value;
  yield(State::at_warp_barrier);
}

void BlockScheduler::sync_warp(uint64_t members) {
  tls_scheduler->wait_in_warp(static_cast<Fiber*>(tls_fiber), members, Fiber::Kind::sync, 0, 0);
}

// "__shfl_down_sync at k.cu:12 in block (0,0,0), warp 1: lane 5 reads lane 21, which has returned".
void BlockScheduler::note_returned_lanes(const hk_host_site* site, int lane, uint64_t returned, const char* how) {
  if (!finding_.empty() || returned == 0) return;
  std::string lanes;
  for (int l = 0; l < 64; ++l)
    if (returned >> l & 1) lanes += (lanes.empty() ? "" : ",") + std::to_string(l);
  const Fiber* f = static_cast<const Fiber*>(tls_fiber);
  finding_ = fmt::format("{} at {}:{} in block ({},{},{}), warp {}: lane {} {} lane(s) {}, which returned before it; on a GPU "
                         "the result is undefined (a collective after an early return)",
                         site ? site->what : "a warp collective", site ? site->file : "?", site ? site->line : 0, block_idx_.x,
                         block_idx_.y, block_idx_.z, f->thread.warp, lane, how, lanes);
}

// Whether a thread ended before it reached the collective its warp counts as number `collective`
// (one that ended after taking part, while its lanes still read, did not).
bool BlockScheduler::returned_before(int thread, uint64_t collective) const {
  const Fiber& f = fibers_[static_cast<size_t>(thread)];
  return f.state == State::done && f.collectives < collective;
}

uint64_t BlockScheduler::exchange(uint64_t value, int src_lane, uint64_t members, const hk_host_site* site) {
  BlockScheduler* s = tls_scheduler;
  Fiber* f = static_cast<Fiber*>(tls_fiber);
  const uint64_t collective = ++f->collectives;
  s->wait_in_warp(f, members, Fiber::Kind::exchange, value, src_lane);
  const int base = f->thread.warp * s->warp_size_;
  if (src_lane >= 0 && src_lane < s->warp_size_ && base + src_lane < s->threads_ && s->returned_before(base + src_lane, collective))
    s->note_returned_lanes(site, f->thread.lane, uint64_t{1} << src_lane, "reads");
  return f->result;
}

uint64_t BlockScheduler::ballot(int predicate, uint64_t mask, const hk_host_site* site) {
  BlockScheduler* s = tls_scheduler;
  Fiber* f = static_cast<Fiber*>(tls_fiber);
  const uint64_t collective = ++f->collectives;
  s->wait_in_warp(f, mask, Fiber::Kind::ballot, predicate != 0, 0);
  const int base = f->thread.warp * s->warp_size_;
  uint64_t returned = 0;
  const uint64_t lanes = s->lanes_of_warp(f->thread.warp);
  for (int l = 0; l < s->warp_size_ && (lanes >> l & 1); ++l)
    if (s->returned_before(base + l, collective)) returned |= (mask >> l & 1) << l;
  s->note_returned_lanes(site, f->thread.lane, returned, "has in its mask");
  return f->result;
}

int BlockScheduler::race_thread() {
  BlockScheduler* s = tls_scheduler;
  if (!s || !s->races_ || !tls_fiber) return -1;
  return static_cast<int>(static_cast<Fiber*>(tls_fiber) - s->fibers_.data());
}

void BlockScheduler::race_access(const void* address, uint64_t bytes, int is_write, const void* code) {
  if (const int t = race_thread(); t >= 0) tls_scheduler->races_->access(t, reinterpret_cast<uintptr_t>(address), bytes, is_write != 0, code);
}

void BlockScheduler::race_atomic(const void* address) {
  if (const int t = race_thread(); t >= 0) tls_scheduler->races_->atomic(t, reinterpret_cast<uintptr_t>(address));
}

void BlockScheduler::race_fence() {
  if (const int t = race_thread(); t >= 0) tls_scheduler->races_->fence(t);
}

hk_host_runtime BlockScheduler::runtime(int warp_size) {
  hk_host_runtime rt{};
  rt.abi_version = HK_HOST_ABI_VERSION;
  rt.warp_size = warp_size;
  rt.current = &BlockScheduler::current;
  rt.sync_block = &BlockScheduler::sync_block;
  rt.sync_warp = &BlockScheduler::sync_warp;
  rt.exchange = &BlockScheduler::exchange;
  rt.ballot = &BlockScheduler::ballot;
  rt.race_access = &BlockScheduler::race_access;
  rt.race_atomic = &BlockScheduler::race_atomic;
  rt.race_fence = &BlockScheduler::race_fence;
  return rt;
}

}  // namespace hk::host
