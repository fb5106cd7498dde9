// How a case worker keeps the memory its cases free. A worker allocates and frees tensors of
// similar sizes case after case; were its big blocks mmapped and unmapped each time (glibc's
// default above 32 MiB), or trimmed back to the system after each case, every case would fault
// its pages in again and the kernel would zero them: on a big case that cost as much as the
// case's own work. So the worker keeps what it frees and reuses it, and gives it back only when
// it holds more than its share of the machine or the machine runs short of memory.
#pragma once

#include <cstdint>

namespace hk {

// Big blocks from the heap (no mmap), and no trimming when they are freed: from here on, freed
// memory stays in the process for the next case.
void keep_freed_memory();

// Free heap bytes the process keeps now (glibc's mallinfo2: free chunks of every arena).
uint64_t freed_memory_kept();

// Gives the kept memory back to the system (malloc_trim) when it exceeds keep_at_most, or when the
// machine has less than min_available bytes available; true when it did.
bool release_freed_memory_beyond(uint64_t keep_at_most, uint64_t min_available);

// The same with this machine's limits: a worker keeps at most an eighth of its physical memory,
// and nothing while less than a quarter of it is available. Called after every case.
bool release_freed_memory_when_short();

}  // namespace hk
