// The host's run-time compiler: turns a kernel source into a shared library with the system C++
// compiler, as NVRTC and hipRTC turn it into GPU code. The prelude headers are written next to
// the source, the host dialect (hk_host.h) is included first, so a plain CUDA source needs no
// hkcheck header, and a trampoline per requested entry is appended so the launch can unpack its
// argument array by the kernel's own signature.
#pragma once

#include "backends/host/cxx_toolchain.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hk::host {

// The symbol stem of the i-th requested entry: the library exports hk_host_entry_<stem> and
// hk_host_arity_<stem>. Entries are C++ expressions ("f<float, 4>"), so they are numbered.
std::string entry_symbol(size_t i);

// The text appended to a kernel source: the ABI symbols and one trampoline per entry, each under
// a #line naming the entry, so that an entry that names no kernel gets an error naming it.
std::string trampolines(const std::vector<std::string>& entries);

struct HostCompileResult {
  bool ok = false;
  std::string library;  // the shared library's bytes
  std::string log;      // the compiler's output
  std::map<std::string, std::string> symbols;  // entry -> entry_symbol(i)
};

// cache_dir: where the prelude and its precompiled header are kept (host_prelude.h); "" for none.
// The kernel is compiled with -fsanitize=bounds and linked, without the sanitizer's runtime, with
// hk_host_bounds.c, which reports an index past a fixed-size array with its line and traps.
// races: compiled with -fsanitize=thread too, and linked with hk_host_races.c, which hands its
// accesses to hkcheck's race detector.
HostCompileResult compile_shared_library(const CompilerInfo& cxx, const std::string& source, const std::string& source_name,
                                         const std::vector<std::string>& options, const std::vector<std::string>& entries,
                                         int warp_size, const std::string& arch, const std::string& cache_dir, bool races = false);

}  // namespace hk::host
