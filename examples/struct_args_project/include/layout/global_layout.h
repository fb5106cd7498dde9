// A global-memory tensor descriptor in the style tile libraries pass to their kernels: a pointer
// and four dimensions, each either known at compile time (a template argument, stored as an
// empty member that still takes a byte) or given at run time (an int member).
#pragma once

namespace layout {

struct runtime_dim {
  int value;
};
template <int N> struct fixed_dim {};  // empty: the value is the type's
template <int N> struct dim_of { using type = fixed_dim<N>; };
template <> struct dim_of<-1> { using type = runtime_dim; };

template <int N> __host__ __device__ inline int value_of(fixed_dim<N>) { return N; }
__host__ __device__ inline int value_of(runtime_dim d) { return d.value; }

// -1 marks a dimension given at run time.
template <typename T, int B = -1, int D = -1, int R = -1, int C = -1>
struct global_layout {
  T* data;
  typename dim_of<B>::type batch;
  typename dim_of<D>::type depth;
  typename dim_of<R>::type rows;
  typename dim_of<C>::type cols;
  struct {} reserved;  // where a library keeps its copy descriptors: an empty member, one byte

  __host__ __device__ int index(int b, int d, int r, int c) const {
    return ((b * value_of(depth) + d) * value_of(rows) + r) * value_of(cols) + c;
  }
  __device__ T& operator()(int b, int d, int r, int c) const { return data[index(b, d, r, c)]; }
};

}  // namespace layout
