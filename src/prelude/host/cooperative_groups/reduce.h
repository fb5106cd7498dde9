// <cooperative_groups/reduce.h> on the host backend: cg::reduce over a tile with the usual
// operators, as a butterfly of shuffles (every thread of the tile gets the result).
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <typename T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <typename T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <typename T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <typename T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

template <unsigned int Size, typename T, typename Op>
inline T reduce(const thread_block_tile<Size>& tile, T v, Op op) {
  for (unsigned int m = Size / 2; m > 0; m /= 2) v = op(v, tile.shfl_xor(v, m));
  return v;
}

}  // namespace cooperative_groups
