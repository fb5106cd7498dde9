// The system C++ compiler as hkcheck runs it: which one, its version, and one compile as the
// compile user (compile_user.h) within its bounds (bounded_command.h), into a private folder. The
// host backend's kernel compiles (host_compiler.h), its prelude's precompiled header and the
// references' builds all run it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/host/bounded_command.h"

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

// A private folder for one compile (hkcheck-host-PID-*), removed with it; the first of a process
// sweeps the folders of dead processes (remove_abandoned_compile_folders).
struct CompileFolder {
  CompileFolder();
  ~CompileFolder();
  CompileFolder(const CompileFolder&) = delete;
  CompileFolder& operator=(const CompileFolder&) = delete;
  std::string path;
};

// A compiler run as the compile user. Under root it works in `folder`, one already given to that
// user that holds its outputs; or, without one (""), in a folder of its own, where its "-o"
// output is written and from where root moves it to where argv named it.
CommandRun run_compiler(std::vector<std::string> argv, const std::string& log_path, const CommandBounds& bounds,
                        const std::string& folder = "");

// A compile's output, read without following a link (the compile user made it); false when it
// is missing or cannot be read.
bool read_output(const std::string& path, std::string* bytes);

// Writes text to path, replacing it; throws std::runtime_error naming the path.
void write_whole_file(const std::string& path, const std::string& text);

}  // namespace hk::host
