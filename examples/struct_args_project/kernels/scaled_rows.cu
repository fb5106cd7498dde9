// One struct argument of descriptors and flags, as a tile library's kernel takes it:
// out[b, h, r, c] = act(x[b, h, r, c] * scale[c] + bias), act = ReLU when relu is set, then
// shifted right by shift bits of an integer tensor (a flag of 8 bits, a count of 16).
#include <cstdint>

#include "layout/global_layout.h"

struct scaled_rows_globals {
  layout::global_layout<float> x;             // [B, H, R, C], every dimension at run time
  layout::global_layout<float> out;
  layout::global_layout<float, 1, 1, 1> scale;  // [1, 1, 1, C]: three dimensions fixed
  layout::global_layout<int, 1, 1> counts;      // [1, 1, R, C] integers, shifted
  float bias;
  bool relu;
  uint8_t shift;
  int16_t offset;
};

__global__ void scaled_rows(const scaled_rows_globals g) {
  const int r = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  for (int c = threadIdx.x; c < layout::value_of(g.x.cols); c += blockDim.x) {
    float v = g.x(b, h, r, c) * g.scale(0, 0, 0, c) + g.bias;
    if (g.relu && v < 0.f) v = 0.f;
    g.out(b, h, r, c) = v;
    if (b == 0 && h == 0) g.counts(0, 0, r, c) = (g.counts(0, 0, r, c) >> g.shift) + g.offset;
  }
}
