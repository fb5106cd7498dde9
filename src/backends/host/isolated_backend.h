// The backend a host worker runs its cases on: the in-process host backend compiles, and a
// kernel process (kernel_process.h) loads and launches. Only the host worker uses it; the host
// backend itself keeps running kernels in the calling process for any other caller.
#pragma once

#include <memory>
#include <string>

namespace hk {

class Backend;

// Replaces `local`, an open host backend, by one whose kernels run in a kernel process. Returns
// what the run's device note should say: "" when kernels run apart as designed, else why not (a
// worker with threads of its own cannot fork safely: its kernels then run inside it). Throws
// BackendError when the kernel process cannot be started.
std::string isolate_host_kernels(std::unique_ptr<Backend>& local);

}  // namespace hk
