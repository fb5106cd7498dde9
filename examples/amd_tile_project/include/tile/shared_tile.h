// A Rows x Cols tile in shared memory (LDS), filled by every thread of the workgroup together.
// Rows are padded by 8 elements so the matrix-core operand reads of one column hit different
// LDS banks.
#pragma once

#include "concepts.h"

namespace tile {

template <matrix_input T, int Rows, int Cols>
struct st {
  using element = T;
  static constexpr int rows = Rows, cols = Cols, pitch = Cols + 8;
  T data[Rows * pitch];

  __device__ T at(int r, int c) const { return data[r * pitch + c]; }

  // Element (r, c) of the tile from src[(row0 + r) * ld + col0 + c], zero where row0 + r or
  // col0 + c is past the matrix (rows_left, cols_left: what remains of it from row0, col0), so
  // any M, N and K run without a separate edge path.
  __device__ void load(const T* src, long long ld, int row0, int col0, int rows_left, int cols_left) {
    for (int i = threadIdx.x; i < Rows * Cols; i += blockDim.x) {
      const int r = i / Cols, c = i % Cols;
      const bool inside = r < rows_left && c < cols_left;
      data[r * pitch + c] = inside ? src[static_cast<long long>(row0 + r) * ld + col0 + c] : static_cast<T>(0.0f);
    }
  }
};

}  // namespace tile
