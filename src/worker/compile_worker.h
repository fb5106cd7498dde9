// A process that only compiles: `hkcheck --compile-worker --backend B --arch A [--hiprtc-root R]`
// (under R's own loader when R is a folder: compile_only.cpp starts it so). It opens the
// compiler of that target (no device), reads requests on stdin and answers on its protocol
// descriptor. A compiler that crashes (Debian's hipRTC aborts for gfx942) takes down this process
// alone; the parent reports that compile and starts another.
// The messages (after a WorkerHello naming its compiler) are CompileJob and CompileAnswer
// (contracts/compile_messages.h, contracts/worker_protocol.h).
#pragma once

#include <string>

#include "platform/backend.h"

namespace hk {

struct CompileWorkerOptions {
  std::string backend, arch;
  std::string hiprtc_root = "system";  // which hipRTC compiles gfx targets (hiprtc_root.h)
  int protocol_fd = 3;
  std::string cache_dir;  // where compiles are kept between runs (compile_cache.h); "" for none
  std::string project_root;  // compile cache keys name paths relative to it
  HostOptions host;
  // Compiling ahead of a run (compile_ahead.h): its reference libraries and its workers, whose
  // cases wait for them now, go first; these compiles take the cores they leave.
  bool yield_cpu = false;
};

int run_compile_worker(const CompileWorkerOptions& opt);

}  // namespace hk
