/* The bounds-check entry points a host kernel compiled with -fsanitize=bounds calls when it
   indexes a fixed-size array (a local `float acc[D]`, a `__shared__` tile, a struct's `v[VEC]`)
   past its end. On a GPU such an access reads or writes whatever lies beyond, unseen; here it
   says where, on the kernel's output (a CRASH message quotes it), and traps. Compiled as C into
   the kernel's library with hidden visibility, so the library needs no sanitizer runtime. The
   layouts are the compiler's (its undefined-behaviour sanitizer ABI). */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

struct hk_ub_location {
  const char* file;
  uint32_t line, column;
};
struct hk_ub_type {
  uint16_t kind; /* 0: an integer, 1: a float */
  uint16_t info; /* integers: log2(bit width) << 1 | signed */
  char name[1];  /* 'float [8]', quotes included */
};
struct hk_ub_out_of_bounds {
  struct hk_ub_location location;
  const struct hk_ub_type* array_type;
  const struct hk_ub_type* index_type;
};

#define HK_BOUNDS_API __attribute__((visibility("hidden")))

/* The index as its type holds it: values up to 64 bits are passed in the handle itself. */
static void hk_report_out_of_bounds(const struct hk_ub_out_of_bounds* d, uintptr_t index) {
  const int is_signed = d->index_type->kind == 0 && (d->index_type->info & 1);
  const unsigned bits = d->index_type->kind == 0 ? 1u << (d->index_type->info >> 1) : 64;
  char text[600];
  int n;
  if (is_signed) {
    int64_t v = (int64_t)index;
    if (bits < 64) v = (int64_t)(index << (64 - bits)) >> (64 - bits);
    n = snprintf(text, sizeof text, "%s:%u:%u: index %lld out of bounds for type %s\n", d->location.file, (unsigned)d->location.line,
                 (unsigned)d->location.column, (long long)v, d->array_type->name);
  } else {
    n = snprintf(text, sizeof text, "%s:%u:%u: index %llu out of bounds for type %s\n", d->location.file, (unsigned)d->location.line,
                 (unsigned)d->location.column, (unsigned long long)index, d->array_type->name);
  }
  if (n > 0) (void)!write(2, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
  __builtin_trap();
}

HK_BOUNDS_API void __ubsan_handle_out_of_bounds(void* data, void* index) {
  hk_report_out_of_bounds((const struct hk_ub_out_of_bounds*)data, (uintptr_t)index);
}
HK_BOUNDS_API void __ubsan_handle_out_of_bounds_abort(void* data, void* index) {
  hk_report_out_of_bounds((const struct hk_ub_out_of_bounds*)data, (uintptr_t)index);
}
