// CPU references compiled at run time: each reference file (HK_REFERENCE definitions, see
// references/reference.h) becomes a shared library built by the system C++ compiler with Eigen,
// cached by content, and loaded by the workers. The built-in references use the same path as a
// project's own, so adding a reference never means rebuilding hkcheck.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/host/bounded_command.h"
#include "reference.h"
#include "select/reference_index.h"
#include "select/root_relative.h"

namespace hk {

// Every header reference file can reach (include_closure.h), searched as its library's build
// searches: its own folder, then runtime_dir ("": builtin_references_dir()). Part of the
// library's key and of --resume's case fingerprints, so that a header the reference includes from
// anywhere (../kernels/x.h, a folder of its own) builds the library again when it changes.
std::string reference_includes_key(const std::string& file, const std::string& runtime_dir, const RootRelative& root);

struct ReferenceBuildOptions {
  std::string cache_dir;    // libraries go to cache_dir/references/ ("": a temporary folder)
  std::string runtime_dir;  // reference.h and reference_context.cpp ("": builtin_references_dir())
  int jobs = 1;             // compiles at once
  double time_limit_s = host::kDefaultCompileLimitSeconds;  // per compile; 0: none
  std::string project_root;  // paths inside it count relative to it in the libraries' keys ("": as they are)
  uint64_t memory_limit_bytes = 0;  // each compile's address space (--memory-limit); 0: none
  // Once true, no further compile starts: the libraries not yet begun are not ok, saying why
  // (a run that ends before it needs them). Compiles under way finish.
  const std::atomic<bool>* stop = nullptr;
};

struct ReferenceLibrary {
  bool ok = false;
  std::string path;  // the shared library, when ok
  std::string log;   // the compiler's message when not
  bool cached = false;
  double ms = 0;     // time spent building (0 when cached)
  std::vector<std::string> notes;  // for the results of its cases: a damaged cache entry made again
};

// The library of one reference file, built into the cache unless a library of the same content
// is there and matches its seal (cache_seal.h); one that does not is built again, with a note.
// A compile past the time limit, or interrupted, is stopped and said in log. Never throws.
ReferenceLibrary build_reference_library(const std::string& file, const ReferenceBuildOptions& opt);

// Builds the libraries of files, several at once; the result is in the order of files. on_ready,
// when given, gets each library as soon as it is ready (from several threads, one call at a time),
// with the repairs of a damaged object or header noted so far.
using LibraryReady = std::function<void(size_t file, const ReferenceLibrary& library)>;
std::vector<ReferenceLibrary> build_reference_libraries(const std::vector<std::string>& files, const ReferenceBuildOptions& opt,
                                                        const LibraryReady& on_ready = {});

// Worker side: reference name from the library at path, loaded once per process; an empty path
// means this program's own (a test binary linked with the references and their exports). The
// library's bytes are read, checked against its seal and loaded from a private copy in memory, so
// a file damaged or replaced in the cache is never run, and one truncated later cannot fault the
// worker. Throws std::runtime_error naming the library (damaged, not loadable, another ABI, no
// such reference).
const ref::Function* load_reference(const std::string& library, const std::string& name);

// hkcheck's rounding as a reference's Context::round_to uses it.
double round_for_reference(const std::string& dtype, double v);

}  // namespace hk
