#include "hkcheck.h"

HK_KERNEL void broken(f32* out, const f32* x, int n) {
  out[0] = x[0] +;  // deliberate syntax error
}
