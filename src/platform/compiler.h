// Run-time compilation apart from any device. NVRTC, hipRTC and the host's C++ compiler compile
// for a named target without opening a GPU, so a program can be compiled in a process that never
// touches one (CI, a machine without the GPU, a compile that may crash). A backend opens the
// compiler of its device's target and loads what it produces.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platform/backend.h"

namespace hk {

class Compiler {
 public:
  virtual ~Compiler() = default;
  // The compiler and its version, e.g. "NVRTC 13.0": compiled code is cached under it.
  virtual std::string version() const = 0;
  // Compiles one source for the compiler's target with the prelude headers in memory, the
  // backend's base options (base_compile_options) and then the request's, and resolves its
  // entries. A source that does not compile gives ok = false and the log; nothing is thrown.
  virtual CompileOutput compile(const CompileRequest& request) = 0;
};

// The compiler of backend (a row of platform/backend_table.h) for target arch ("sm_90", "gfx90a"; for the
// host, the profile in host gives the target). hiprtc_root: which hipRTC (hiprtc_root.h), "system"
// for the system's own. Throws BackendUnavailable when its library or program is missing or the
// backend is not built in.
std::unique_ptr<Compiler> open_compiler(const std::string& backend, const std::string& arch, const HostOptions& host = {},
                                        const std::string& hiprtc_root = "system");

}  // namespace hk
