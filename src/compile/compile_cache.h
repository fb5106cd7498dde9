// Compiled kernel files, kept in the process and, optionally, in a folder between processes,
// keyed by everything that goes into a compile: the compiler and its target, the prelude, the
// options, the entries, every header the source can reach through its include lines
// (include_closure.h) and the source itself. A run's
// workers and --compile-only's compile workers both keep their compiles here.
// Paths inside the project's root count relative to it, in the key and in the kept log, so the
// same project cloned into another folder reads the same entries (CI). A kept binary's __FILE__
// still names the folder it was compiled in (docs/ci.md, "How long CI takes").
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "select/root_relative.h"

namespace hk {

class CompileCache {
 public:
  using CompileFn = std::function<CompileOutput(const CompileRequest&)>;

  // dir: where compiled binaries are kept between processes; empty for memory only.
  // project_root: the project's folder ("": every path counts as it is, absolute).
  explicit CompileCache(std::string dir, const std::string& project_root = "") : dir_(std::move(dir)), root_(project_root) {}
  // Returns the output and whether it came from the cache.
  // *key, when given, receives the cache key (for load()).
  CompileOutput get(Backend& be, const CompileRequest& request, bool* cached, std::string* key = nullptr);
  // The same for a compiler without a device (--compile-only): compiler names it and its target
  // (backend, arch, version, which library), backend is "cuda" or "hip", compile compiles.
  CompileOutput get(const std::string& compiler, const std::string& backend, const CompileFn& compile, const CompileRequest& request,
                    bool* cached);
  // The same for a process with no device compiling ahead of a run's workers (compile_ahead.h):
  // the entry is kept under the key those workers look up on `device`, and compile must compile
  // as their backend does. Nothing, and no compile, when another process is compiling that key now.
  std::optional<CompileOutput> get_ahead(const DeviceInfo& device, const CompileFn& compile, const CompileRequest& request, bool* cached);
  // Whether a run's workers on device would find this compile kept (an entry is there; whether it
  // is sound is checked when it is read).
  bool kept_for_run(const DeviceInfo& device, const CompileRequest& request) const;
  // The entry of a program loaded once per process: a worker that runs many cases loads each
  // program once, so its __device__ variables live on from case to case as they would in an
  // application (a kernel that relies on them starting at zero fails after its first case: LEAK).
  Backend::Kernel load(Backend& be, const std::string& key, const std::string& binary, const std::string& entry);

 private:
  // Compiles under a lock on the key (compile_lock.h): with wait_for_others, a compile another
  // process is making of it is waited for and read; without, nothing is returned.
  std::optional<CompileOutput> get_keyed(const std::string& key_head, const std::string& backend, const CompileFn& compile,
                                         const CompileRequest& q, bool* cached, std::string* key_out, bool wait_for_others);
  std::string key_of(const std::string& key_head, const CompileRequest& q) const;
  // The entry kept in file, if sound (a damaged one is noted); *there: whether the file was there.
  std::optional<CompileOutput> read_kept(const std::string& file, const std::string& key, bool* there);

  std::string dir_;
  RootRelative root_;
  std::map<std::string, CompileOutput> memory_;
  std::map<std::string, Backend::Kernel> loaded_;
};

// The first part of a run's compile-cache keys on device: its compiler, target, warp size and prelude.
std::string run_compile_key_head(const DeviceInfo& device);

// The binary of a compile-cache file, or nothing when the file is torn, altered, of an older
// format or sealed for another key (it is then compiled again).
std::optional<std::string> unseal_cache_entry(const std::string& entry, const std::string& key);

}  // namespace hk
