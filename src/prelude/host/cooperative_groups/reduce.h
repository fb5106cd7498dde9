// <cooperative_groups/reduce.h> on the host backend: cg::reduce over a tile with the usual
// operators, as a butterfly of shuffles (every thread of the tile gets the result).
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename HkT> struct plus { HkT operator()(HkT a, HkT b) const { return a + b; } };
template <typename HkT> struct less { HkT operator()(HkT a, HkT b) const { return b < a ? b : a; } };
template <typename HkT> struct greater { HkT operator()(HkT a, HkT b) const { return a < b ? b : a; } };
template <typename HkT> struct bit_and { HkT operator()(HkT a, HkT b) const { return a & b; } };
template <typename HkT> struct bit_or { HkT operator()(HkT a, HkT b) const { return a | b; } };
template <typename HkT> struct bit_xor { HkT operator()(HkT a, HkT b) const { return a ^ b; } };

template <unsigned int HkSize, typename HkT, typename HkOp>
inline HkT reduce(const thread_block_tile<HkSize>& tile, HkT v, HkOp op) {
  for (unsigned int m = HkSize / 2; m > 0; m /= 2) v = op(v, tile.shfl_xor(v, m));
  return v;
}

}  // namespace cooperative_groups
