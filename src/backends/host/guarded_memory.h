// The host backend's "device" memory: each allocation ends against 64 KiB that may not be touched
// (PROT_NONE), with a page before it. A write a little past a tensor, or anywhere before it in its
// first page, lands in its guard pattern and is reported with its offsets, as on a GPU; one
// kilobytes past faults at once (a CRASH, as an illegal address is on a GPU), instead of a quiet
// write into a neighbour.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace hk::host {

struct GuardedBlock {
  void* data = nullptr;  // 256-byte aligned; its rounded-up end touches the guard pages
  void* base = nullptr;  // the whole mapping, guard pages included
  size_t length = 0;
  size_t bytes = 0;  // as asked for: data[0, bytes) is the buffer
};

// The bytes of the mapping around a buffer of `bytes` that belong to nothing: from the page
// boundary up to its start, and from its end up to the guard pages. A kernel can write them
// without a fault, so they are guarded too (Backend::slack).
size_t guarded_slack_before(size_t bytes);
size_t guarded_slack_after(size_t bytes);

// nullptr data when the memory cannot be had.
GuardedBlock guarded_alloc(size_t bytes);
void guarded_free(const GuardedBlock& block);
// Every block allocated or mapped and not yet freed, as {data, bytes}: the memory a launch can
// reach, which the race detector watches (race_detector.h).
std::vector<std::pair<const void*, size_t>> live_guarded_blocks();

// Shared memory (a memfd) for a buffer that two processes see: the worker judges what the kernel
// process writes (kernel_process.h). The file holds guarded_file_bytes(bytes) bytes, the buffer
// starting guarded_data_offset(bytes) into it, so that its end touches the guard pages.
size_t guarded_file_bytes(size_t bytes);
size_t guarded_data_offset(size_t bytes);
// The file mapped between guard pages, as guarded_alloc lays out its memory; nullptr data on failure.
GuardedBlock guarded_map(int fd, size_t bytes);

}  // namespace hk::host
