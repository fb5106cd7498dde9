// The kernel process's side (kernel_process.h): forked from a host worker before it reads any
// request, it keeps only what a kernel may touch, then loads and launches kernels on request.
#pragma once

namespace hk {
class Backend;
}

namespace hk::host {

// The descriptor the kernel process answers on. Not 3, the worker's protocol descriptor: a
// kernel that writes to, closes or replaces descriptor 3 finds nothing there.
constexpr int kKernelChannelFd = 10;

// The kernel process's exit code when its channel broke: the kernel closed or replaced it.
constexpr int kKernelChannelLost = 124;

// The uid and gid a kernel process started by root runs as ("nobody" on Linux).
constexpr unsigned kKernelProcessId = 65534;

// In the forked child: keeps stdin (/dev/null), stdout and stderr (out_fd) and the channel (sock)
// and closes every other descriptor, leaves root for kKernelProcessId, says hello, then serves
// requests with the in-process backend `local` until the worker closes the channel.
[[noreturn]] void serve_kernel_process(Backend& local, int sock, int out_fd, int worker_pid);

}  // namespace hk::host
