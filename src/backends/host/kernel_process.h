// On the host backend a kernel is native code. A host worker runs its kernels in a process of
// their own, forked before the worker reads any request: the kernel process. It shares with the
// worker only the case's buffers (shared memory, which the worker copies out before judging) and
// a pipe for its output; it has neither the worker's protocol descriptor nor its stdin, and when
// hkcheck runs as root it runs as nobody. So nothing a kernel does to descriptors, signals or its
// own process can write the worker's answer to hkcheck (docs/host_backend.md: what remains).
#pragma once

#include <string>
#include <sys/types.h>

#include "backends/host/kernel_channel.h"
#include "contracts/race_report.h"

namespace hk {
class Backend;
}

namespace hk::host {

class KernelProcess {
 public:
  // Forks the kernel process, which serves `local`, an in-process host backend (kernel_server.h),
  // then makes this process deaf to the signals a kernel could send it. Throws BackendError.
  explicit KernelProcess(Backend& local);
  ~KernelProcess();  // closes the channel, kills and reaps the process
  KernelProcess(const KernelProcess&) = delete;
  KernelProcess& operator=(const KernelProcess&) = delete;

  // What the kernel process said when it started: "" or why it still runs as root.
  const std::string& note() const { return note_; }

  // Sends q (with fd beside it when fd >= 0) and waits for the answer, relaying the kernel's
  // output to this process's stdout meanwhile; *reply_tail gets what followed the reply (times).
  // Throws MissingEntry or BackendError as the kernel process answered, and a sticky BackendError
  // (a CRASH, saying how, with its last output) when it died or broke its channel.
  KernelReply call(KernelRequest q, const std::string& tail = {}, int fd = -1, std::string* reply_tail = nullptr);

 private:
  static RaceReport race_from_text(const std::string& text);
  KernelReply receive(KernelOp op, uint32_t seq, std::string& tail);
  [[noreturn]] void gone(KernelOp op, const std::string& what);
  bool ended();  // reaps the process if it ended; status_ then holds how
  void relay();
  pid_t pid_ = -1;
  int sock_ = -1, out_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  uint32_t seq_ = 0;
  std::string note_, output_tail_, dead_;
};

}  // namespace hk::host
