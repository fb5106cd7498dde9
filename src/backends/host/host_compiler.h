// The host's run-time compiler: turns a kernel source into a shared library with the system C++
// compiler, as NVRTC and hipRTC turn it into GPU code. The prelude headers are written next to
// the source, and a trampoline per HK_KERNEL is appended so the launch can unpack its argument
// array by the kernel's own signature.
#pragma once

#include <string>
#include <vector>

namespace hk::host {

struct CompilerInfo {
  std::string path;     // what is run: $HKCHECK_HOST_CXX, $CXX or c++
  std::string version;  // first line of `--version`
};

// Finds the compiler and asks its version; throws std::runtime_error naming it when it cannot run.
CompilerInfo find_compiler();

// Entry points of a source: the names declared `HK_KERNEL void name(`, comments ignored.
std::vector<std::string> kernel_entries(const std::string& source);

// The text appended to a kernel source: the ABI symbols and one trampoline per entry.
std::string trampolines(const std::vector<std::string>& entries);

struct HostCompileResult {
  bool ok = false;
  std::string library;  // the shared library's bytes
  std::string log;      // the compiler's output
};

HostCompileResult compile_shared_library(const CompilerInfo& cxx, const std::string& source, const std::string& source_name,
                                         const std::vector<std::string>& options, int warp_size);

}  // namespace hk::host
