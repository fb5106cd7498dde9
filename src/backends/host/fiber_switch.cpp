#include "backends/host/fiber_switch.h"

#include <cstdint>

#ifdef HK_FIBER_ASM
// hk_fiber_switch(void** save_sp, void* load_sp): pushes the System V callee-saved registers and
// the SSE/x87 control words, saves rsp, loads the other stack and pops the same layout from it.
extern "C" void hk_fiber_switch(void** save_sp, void* load_sp);
asm(R"(
  .text
  .globl hk_fiber_switch
  .type hk_fiber_switch,@function
hk_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size hk_fiber_switch,.-hk_fiber_switch
  .section .note.GNU-stack,"",@progbits
  .text
)");
#endif

namespace hk::host {

#ifdef HK_FIBER_ASM
void fiber_prepare(FiberContext& ctx, void* stack_base, size_t stack_bytes, void (*entry)()) {
  auto top = (reinterpret_cast<uintptr_t>(stack_base) + stack_bytes) & ~uintptr_t{15};
  auto* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                     // entry's return address: it never returns
  *--sp = reinterpret_cast<uint64_t>(entry);     // where the first switch's ret goes
  for (int i = 0; i < 6; ++i) *--sp = 0;         // rbp rbx r12 r13 r14 r15
  *--sp = uint64_t{0x037F} << 32 | 0x1F80;       // default x87 control word, MXCSR
  ctx.sp = sp;
}

void fiber_switch(FiberContext& from, FiberContext& to) { hk_fiber_switch(&from.sp, to.sp); }
#else
void fiber_prepare(FiberContext& ctx, void* stack_base, size_t stack_bytes, void (*entry)()) {
  getcontext(&ctx.uc);
  ctx.uc.uc_stack.ss_sp = stack_base;
  ctx.uc.uc_stack.ss_size = stack_bytes;
  ctx.uc.uc_link = nullptr;
  makecontext(&ctx.uc, entry, 0);
}

void fiber_switch(FiberContext& from, FiberContext& to) { swapcontext(&from.uc, &to.uc); }
#endif

}  // namespace hk::host
