// Fiber stacks, each with a guard page below it, kept for the next launch. Mapping 1024 stacks,
// protecting 1024 guard pages and faulting the stacks back in, per launch and OS thread, was a
// sixth of a host run's time; a launch now takes a mapping another launch gave back.
#pragma once

#include <cstddef>

namespace hk::host {

class FiberStacks {
 public:
  // Room for `count` stacks of `bytes` each (rounded up to pages). Throws std::runtime_error
  // when the memory cannot be mapped.
  FiberStacks(int count, size_t bytes);
  ~FiberStacks();  // gives the mapping back to the pool (or unmaps it when the pool is full)
  FiberStacks(const FiberStacks&) = delete;
  FiberStacks& operator=(const FiberStacks&) = delete;

  void* base(int i) const;  // lowest usable address of stack i
  size_t bytes() const { return bytes_; }

 private:
  void* map_ = nullptr;
  int count_ = 0;
  size_t bytes_ = 0;
};

}  // namespace hk::host
