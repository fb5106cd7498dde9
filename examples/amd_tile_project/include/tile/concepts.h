// What the tile layer's templates accept, as C++20 concepts: a kernel that instantiates a tile
// with the wrong element type or shape fails at the template, with the concept's name in the
// message, not deep inside an instruction's operand types.
#pragma once

#include <concepts>

namespace tile {

// An element the f16 matrix-core instructions take (v_mfma_f32_*_f16).
template <class T>
concept matrix_input = std::same_as<T, _Float16>;

// A tile in shared memory (LDS): its element type and extent are part of its type. (std::same_as,
// not std::convertible_to: the latter goes through std::declval, which clang's HIP mode refuses
// in device code.)
template <class T>
concept shared_tile = requires(const T& t, int r, int c) {
  typename T::element;
  { T::rows } -> std::same_as<const int&>;
  { T::cols } -> std::same_as<const int&>;
  { t.at(r, c) } -> std::same_as<typename T::element>;
};

// The matrix cores multiply 32x32 output tiles; K comes in steps of 16 (the largest step of the
// instructions used here), so a tile's depth must be a multiple of it.
template <int Rows, int Cols, int Depth>
concept mma_shape = Rows == 32 && Cols == 32 && Depth > 0 && Depth % 16 == 0;

}  // namespace tile
