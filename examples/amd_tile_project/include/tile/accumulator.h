// A 32x32 f32 accumulator held by the 64 lanes of one wavefront, laid out as the 32x32 matrix-core
// instructions (v_mfma_f32_32x32x8f16, v_mfma_f32_32x32x16_f16) leave their result: lane l holds
// column l % 32 and rows 8 * (j / 4) + 4 * (l / 32) + j % 4 for j = 0..15 (the CDNA3 ISA guide's
// operand layout tables).
#pragma once

namespace tile {

struct acc32x32 {
  static constexpr int per_lane = 16;
  float v[per_lane];

  static __device__ int row_of(int lane, int j) { return 8 * (j / 4) + 4 * (lane / 32) + j % 4; }
  static __device__ int col_of(int lane) { return lane % 32; }

  __device__ void zero() {
    for (int j = 0; j < per_lane; ++j) v[j] = 0.0f;
  }

  // The tile into dst at (row0, col0) with leading dimension ld; nothing past the matrix's edge.
  __device__ void store(float* dst, long long ld, int row0, int col0, int rows_left, int cols_left, int lane) const {
    const int c = col_of(lane);
    if (c >= cols_left) return;
    for (int j = 0; j < per_lane; ++j) {
      const int r = row_of(lane, j);
      if (r < rows_left) dst[static_cast<long long>(row0 + r) * ld + col0 + c] = v[j];
    }
  }
};

}  // namespace tile
