// Misbehaving kernels for tests/audit/audit.py (part "kernels"): memory faults. Each does one bad
// thing from thread 0 of block 0 and never writes `out` correctly unless noted, so the only way
// one of them can PASS is a harness bug. Host backend only (tests/audit/README.md).
// Signature of every entry: (out, x, n, p) with p == 0 passed as a u64 scalar (kept opaque to
// the compiler, so that a null pointer made from it is not folded away).
#include "hkcheck.h"
#ifdef HK_BACKEND_HOST
#include <cstdlib>
#include <cstring>
#include <new>
#endif

#define AUDIT_FIRST (blockIdx.x == 0 && threadIdx.x == 0)

// The control: a correct copy. Must PASS before and after all the abuse.
HK_KERNEL void audit_copy_ok(f32* out, const f32* x, int n, u64 p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + static_cast<f32>(p);
}

HK_KERNEL void audit_null_write(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) *reinterpret_cast<volatile f32*>(p) = x[0];
}

HK_KERNEL void audit_null_read(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) out[0] = *reinterpret_cast<volatile const f32*>(p + 8);
}

// Copies correctly, then writes one byte just past the end of out (into the guard region).
HK_KERNEL void audit_past_1byte(f32* out, const f32* x, int n, u64 p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
  if (AUDIT_FIRST) reinterpret_cast<volatile u8*>(out)[(long long)n * 4 + p] = 0x42;
}

// Copies correctly, then writes one byte just before out.
HK_KERNEL void audit_before_1byte(f32* out, const f32* x, int n, u64 p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
  if (AUDIT_FIRST) reinterpret_cast<volatile u8*>(out)[-1 - (long long)p] = 0x42;
}

// Copies correctly, then writes 4 KiB past the end of out (beyond the 256-byte guard).
HK_KERNEL void audit_past_4k(f32* out, const f32* x, int n, u64 p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
  if (AUDIT_FIRST) reinterpret_cast<volatile u8*>(out)[(long long)n * 4 + 4096 + p] = 0x42;
}

// Copies correctly, then writes 1 MiB past the end of out.
HK_KERNEL void audit_past_1m(f32* out, const f32* x, int n, u64 p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
  if (AUDIT_FIRST) reinterpret_cast<volatile u8*>(out)[(long long)n * 4 + (1 << 20) + p] = 0x42;
}

// Reads 1 GiB past the end of x.
HK_KERNEL void audit_read_far(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) out[0] = reinterpret_cast<volatile const f32*>(x)[n + (1ll << 28) + p];
}

#ifdef HK_BACKEND_HOST
// 2^62 bytes from malloc: it must fail (a null pointer, handled); out is left unwritten.
HK_KERNEL void audit_malloc_huge(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  void* m = malloc((size_t(1) << 62) + p);
  if (m) {
    memset(m, 0, 64);
    free(m);
  }
}

// 2^62 bytes from new: std::bad_alloc thrown out of a kernel (the pointer escapes, so that the
// compiler may not elide the allocation).
static char* volatile audit_sink;
HK_KERNEL void audit_new_huge(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  audit_sink = new char[(size_t(1) << 62) + p];
  audit_sink[0] = 1;
}

HK_KERNEL void audit_double_free(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  char* volatile m = static_cast<char*>(malloc(64 + p));
  free(m);
  free(m);
}

// A C++ exception out of a kernel.
HK_KERNEL void audit_throw(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) throw std::bad_alloc();
}
#endif

// Deep recursion: overflows the (fiber) stack.
HK_DEVICE int audit_recurse(volatile int* depth, int level) {
  volatile char pad[512];
  pad[0] = static_cast<char>(level);
  if (*depth < 0) return pad[0];
  return audit_recurse(depth, level + 1) + pad[level % 512];
}

HK_KERNEL void audit_stack_overflow(f32* out, const f32* x, int n, u64 p) {
  volatile int depth = static_cast<int>(p);
  if (AUDIT_FIRST) out[0] = static_cast<f32>(audit_recurse(&depth, 0));
}
