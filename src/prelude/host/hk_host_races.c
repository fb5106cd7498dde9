/* The thread-sanitizer entry points a kernel compiled with -fsanitize=thread calls, for hkcheck's
   race detector (--races): each forwards to the scheduler's race hooks (hk_host_abi.h). Compiled
   as C without instrumentation and linked into the kernel's library with hidden visibility, so
   the library needs no sanitizer runtime and each library calls its own copy. */
#include <stdint.h>

#include "hk_host_abi.h"

extern const struct hk_host_runtime* hk_host_rt;

#define HK_RACE_API __attribute__((visibility("hidden")))
#define HK_CALLER __builtin_return_address(0)
/* Each call checks hk_host_rt: the library's constructors run before hkcheck binds it. */

HK_RACE_API void __tsan_init(void) {}
HK_RACE_API void __tsan_func_entry(void* pc) { (void)pc; }
HK_RACE_API void __tsan_func_exit(void) {}
HK_RACE_API void __tsan_vptr_update(void** p, void* v) { (void)p, (void)v; }
HK_RACE_API void __tsan_vptr_read(void** p) { (void)p; }

#define HK_ACCESS(n)                                                                                       \
  HK_RACE_API void __tsan_read##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 0, HK_CALLER); }                 \
  HK_RACE_API void __tsan_write##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 1, HK_CALLER); }                \
  HK_RACE_API void __tsan_unaligned_read##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 0, HK_CALLER); }       \
  HK_RACE_API void __tsan_unaligned_write##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 1, HK_CALLER); }      \
  HK_RACE_API void __tsan_volatile_read##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 0, HK_CALLER); }        \
  HK_RACE_API void __tsan_volatile_write##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 1, HK_CALLER); }       \
  HK_RACE_API void __tsan_unaligned_volatile_read##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 0, HK_CALLER); } \
  HK_RACE_API void __tsan_unaligned_volatile_write##n(void* p) { if (hk_host_rt) hk_host_rt->race_access(p, n, 1, HK_CALLER); }
HK_ACCESS(1)
HK_ACCESS(2)
HK_ACCESS(4)
HK_ACCESS(8)
HK_ACCESS(16)
HK_RACE_API void __tsan_read_range(void* p, long n) { if (hk_host_rt) hk_host_rt->race_access(p, (uint64_t)n, 0, HK_CALLER); }
HK_RACE_API void __tsan_write_range(void* p, long n) { if (hk_host_rt) hk_host_rt->race_access(p, (uint64_t)n, 1, HK_CALLER); }

/* Atomics do what they say, then tell the detector: an atomic never races, and it carries the
   ordering the detector models (hk_host_races in docs/host_backend.md). */
#define HK_ATOMICS(bits, T)                                                                                           \
  HK_RACE_API T __tsan_atomic##bits##_load(const volatile T* a, int mo) {                                              \
    (void)mo;                                                                                                          \
    T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                                        \
    if (hk_host_rt) hk_host_rt->race_atomic((const void*)a);                                                                           \
    return v;                                                                                                          \
  }                                                                                                                    \
  HK_RACE_API void __tsan_atomic##bits##_store(volatile T* a, T v, int mo) {                                           \
    (void)mo;                                                                                                          \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                                          \
    if (hk_host_rt) hk_host_rt->race_atomic((const void*)a);                                                                           \
  }                                                                                                                    \
  HK_RACE_API T __tsan_atomic##bits##_exchange(volatile T* a, T v, int mo) {                                           \
    (void)mo;                                                                                                          \
    T old = __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                               \
    if (hk_host_rt) hk_host_rt->race_atomic((const void*)a);                                                                           \
    return old;                                                                                                        \
  }                                                                                                                    \
  HK_RACE_API T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int mo) { (void)mo; T o = __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); if (hk_host_rt) hk_host_rt->race_atomic((const void*)a); return o; } \
  HK_RACE_API T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int mo) { (void)mo; T o = __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); if (hk_host_rt) hk_host_rt->race_atomic((const void*)a); return o; } \
  HK_RACE_API T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int mo) { (void)mo; T o = __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); if (hk_host_rt) hk_host_rt->race_atomic((const void*)a); return o; } \
  HK_RACE_API T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int mo) { (void)mo; T o = __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); if (hk_host_rt) hk_host_rt->race_atomic((const void*)a); return o; } \
  HK_RACE_API T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int mo) { (void)mo; T o = __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); if (hk_host_rt) hk_host_rt->race_atomic((const void*)a); return o; } \
  HK_RACE_API T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int mo) { (void)mo; T o = __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); if (hk_host_rt) hk_host_rt->race_atomic((const void*)a); return o; } \
  HK_RACE_API int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v, int mo, int fail_mo) { \
    (void)mo, (void)fail_mo;                                                                                           \
    int ok = __atomic_compare_exchange_n(a, expected, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                       \
    if (hk_host_rt) hk_host_rt->race_atomic((const void*)a);                                                                           \
    return ok;                                                                                                         \
  }                                                                                                                    \
  HK_RACE_API int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v, int mo, int fail_mo) {   \
    return __tsan_atomic##bits##_compare_exchange_strong(a, expected, v, mo, fail_mo);                                 \
  }                                                                                                                    \
  HK_RACE_API T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int mo, int fail_mo) {       \
    __tsan_atomic##bits##_compare_exchange_strong(a, &expected, v, mo, fail_mo);                                       \
    return expected;                                                                                                   \
  }
HK_ATOMICS(8, uint8_t)
HK_ATOMICS(16, uint16_t)
HK_ATOMICS(32, uint32_t)
HK_ATOMICS(64, uint64_t)

HK_RACE_API void __tsan_atomic_thread_fence(int mo) {
  (void)mo;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (hk_host_rt) hk_host_rt->race_fence();
}
HK_RACE_API void __tsan_atomic_signal_fence(int mo) { (void)mo; }
