// Data-parallel loops over the big arrays of one case (inputs, packing, comparison), so a
// worker's CPU-side work is spread over cores instead of holding up the run. [0, n) is cut into
// chunks of a fixed size: the cut depends on n alone, never on the thread count, so a result
// combined chunk by chunk is the same on every machine and in every isolation mode.
#pragma once

#include <cstdint>
#include <functional>

namespace hk {

// Threads a parallel loop may use, the calling one included (1: everything on the caller).
void set_parallel_threads(int threads);
int parallel_threads();

// Calls fn(chunk, begin, end) once for every chunk [begin, end) of [0, n), `chunk` elements
// each (the last may be shorter), from up to parallel_threads() threads; returns when all are
// done. An exception from fn is rethrown here once every chunk has finished.
void parallel_chunks(int64_t n, int64_t chunk, const std::function<void(int64_t index, int64_t begin, int64_t end)>& fn);

// Chunk size of the loops over elements: a multiple of 64, so that chunks of a std::vector<bool>
// never share a word.
constexpr int64_t kElementChunk = int64_t{1} << 16;

}  // namespace hk
