// Switching between fibers without a system call. ucontext's swapcontext saves and restores the
// signal mask with a system call on every switch, and a block of 1024 threads switches millions
// of times per launch; on x86-64 a few instructions that save the callee-saved registers and swap
// stacks do the same job. Other architectures use ucontext.
#pragma once

#include <cstddef>

#if defined(__x86_64__) && !defined(HKCHECK_FIBERS_UCONTEXT)
#define HK_FIBER_ASM 1
#else
#include <ucontext.h>
#endif

namespace hk::host {

// A suspended execution: a stack pointer (asm) or a ucontext.
struct FiberContext {
#ifdef HK_FIBER_ASM
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
};

// Prepares ctx to start running entry() on the given stack at the first switch to it. entry must
// never return: it ends by switching away for good.
void fiber_prepare(FiberContext& ctx, void* stack_base, size_t stack_bytes, void (*entry)());
// Saves the running context into from and resumes to.
void fiber_switch(FiberContext& from, FiberContext& to);

}  // namespace hk::host
