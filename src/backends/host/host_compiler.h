// The host's run-time compiler: turns a kernel source into a shared library with the system C++
// compiler, as NVRTC and hipRTC turn it into GPU code. The prelude headers are written next to
// the source, the host dialect (hk_host.h) is included first, so a plain CUDA source needs no
// hkcheck header, and a trampoline per requested entry is appended so the launch can unpack its
// argument array by the kernel's own signature.
#pragma once

#include "backends/host/bounded_command.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hk::host {

struct CompilerInfo {
  std::string path;     // what is run: $HKCHECK_HOST_CXX, $CXX or c++
  std::string version;  // first line of `--version`
};

// Finds the compiler and asks its version; throws std::runtime_error naming it when it cannot run.
// HKCHECK_HOST_CXX; else, where prefer_clang (the AMD profiles), the newest clang++-N on PATH or
// clang++ if it runs; else CXX; else c++.
CompilerInfo find_compiler(bool prefer_clang = false);
// clang takes neither g++'s -fno-gnu-unique nor its .gch precompiled headers.
bool is_clang(const CompilerInfo& cxx);

// Runs argv with its output into log_path and waits, at most limit_s seconds (0: none); see
// bounded_command.h for what stops it and what it leaves behind (nothing).
CommandRun run_command(const std::vector<std::string>& argv, const std::string& log_path, const CommandBounds& bounds = {});
// Runs the compiler argv with "-o" a temporary name beside path and renames its output to path
// when it succeeds: a concurrent run never reads half a file. Under root the compiler runs as the
// compile user (compile_user.h), writing into a folder of its own. before_rename, when given, is called with
// the temporary file first (to seal it, cache_seal.h) and may refuse it with a message. A failed
// rename is a failed run, said in output.
using BeforeRename = std::function<bool(const std::string& temporary, std::string* why)>;
CommandRun run_command_into(std::vector<std::string> argv, const std::string& path, const CommandBounds& bounds = {},
                            const BeforeRename& before_rename = {});

// Removes the temporary folders of host compiles whose process is gone (killed mid-compile).
// The first compile of each process does it.
void remove_abandoned_compile_folders();

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
