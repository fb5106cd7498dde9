// Building reference libraries (runtime_references.h): each reference file with the system C++
// compiler and Eigen into a shared library in the cache, named by the hash of what builds it.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>

#include "backends/host/host_compiler.h"
#include "backends/host/precompiled_header.h"
#include "compile/cache_seal.h"
#include "util/file_util.h"
#include "util/fnv1a.h"
#include "compile/header_being_made.h"
#include "compile/header_fingerprint.h"
#include "compile/include_closure.h"
#include "process/memory_limit.h"
#include "process/private_folder.h"
#include "select/root_relative.h"
#include "refs/runtime_references.h"
#include "util/threads.h"

#ifndef HKCHECK_EIGEN_INCLUDE
#define HKCHECK_EIGEN_INCLUDE "/usr/include/eigen3"
#endif

namespace hk {
namespace fs = std::filesystem;
namespace {

// Flags of every reference compile; part of the cache key. Scalar code keeps IEEE double
// arithmetic exactly as written: no contraction of a * b + c into a fused multiply-add
// (-ffp-contract=off, and never -march). Eigen's products are another matter: where this CPU has
// them, they run on AVX2's 4 doubles or AVX-512's 8 and multiply-add with FMA, each step rounded
// once instead of twice (more accurate, not less). On the 16-core Xeon of the GPU machine a
// double product ran at 28 GFLOP/s on one core without FMA. The vector width sets a sum's
// order, so the flags are in the key: a cache shared with another CPU builds its own.
const std::vector<std::string>& reference_flags() {
  static const std::vector<std::string> flags = [] {
    std::vector<std::string> f = {"-std=c++17", "-O2", "-DNDEBUG", "-fPIC", "-ffp-contract=off"};
#if defined(__x86_64__)
    const bool fma = __builtin_cpu_supports("fma");
    if (__builtin_cpu_supports("avx2")) f.push_back("-mavx2");
    if (__builtin_cpu_supports("avx2") && fma) f.push_back("-mfma");
    if (__builtin_cpu_supports("avx512f") && fma) f.push_back("-mavx512f");  // Eigen takes AVX-512 with FMA only
#endif
    return f;
  }();
  return flags;
}

std::string eigen_include() {
  if (const char* e = std::getenv("HKCHECK_EIGEN_INCLUDE"); e && *e) return e;
  return HKCHECK_EIGEN_INCLUDE;
}

const host::CompilerInfo& compiler() {
  static const host::CompilerInfo c = host::find_compiler();  // throws BackendUnavailable: caught by the caller
  return c;
}

std::string cache_folder(const std::string& cache_dir) {
  if (!cache_dir.empty()) return cache_dir + "/references";
  return (fs::temp_directory_path() / fmt::format("hkcheck-references-{}", getuid())).string();
}

struct Built {
  bool ok = false;
  std::string log;
  std::string stopped;  // why the compiler was stopped (bounded_command.h), or ""
};

// Builds path with argv (no "-o"), sealed before it is renamed into place (cache_seal.h).
Built build_into(const std::vector<std::string>& argv, const std::string& path, const host::CommandBounds& bounds) {
  const host::CommandRun r = host::run_command_into(argv, path, bounds, [&](const std::string& tmp, std::string* why) {
    return write_seal(tmp, path, why);
  });
  Built out{r.started && r.exit_code == 0, r.output, host::stopped_because(r, bounds.seconds)};
  if (!out.ok && out.log.empty()) out.log = fmt::format("the compiler exited with {}", r.exit_code);
  if (!out.ok && bounds.memory_bytes > 0)
    out.log += fmt::format("\n(hkcheck: the compiler's memory was bounded by --memory-limit, {})", bytes_text(bounds.memory_bytes));
  return out;
}

// "compiling FILE took longer than ...", or "compiling FILE: <the compiler's message>".
std::string failure(const std::string& source, const Built& b) {
  if (!b.stopped.empty()) return fmt::format("compiling {} {}", source, b.stopped);
  return fmt::format("compiling {}: {}", source, b.log);
}

// Whether the cache holds path as it was made. A damaged entry (torn, truncated, edited, or
// without a seal) is removed, said in *note, and made again by the caller.
bool cached_intact(const std::string& path, const std::string& what, std::string* note) {
  std::error_code ec;
  if (!fs::exists(path, ec) && !fs::exists(seal_path(path), ec)) return false;
  const std::string why = seal_mismatch(path);
  if (why.empty()) return true;
  *note = fmt::format("the cached {} {} was damaged ({}): it was compiled again", what, path, why);
  remove_sealed(path);
  return false;
}

// reference_context.cpp is the same in every library: it is compiled once per cache into an
// object that each library links (compiled with each reference file, it cost a CPU-second each).
// Its name is the hash of what builds it.
struct ContextObject {
  std::vector<std::string> argv;
  std::string path;
};

// A command as a cache key: paths inside the project relative to its root, so that a clone of
// the project in another folder (CI) finds the libraries an earlier clone built.
std::string command_key(const std::vector<std::string>& argv, const RootRelative& root) {
  std::string key;
  for (const std::string& a : argv) key += (a.rfind('-', 0) == 0 ? root.option(a) : root.path(a)) + "\n";
  return key;
}

ContextObject context_object(const std::string& builtin, const std::string& folder, const RootRelative& root) {
  const std::string source = builtin + "/reference_context.cpp";
  ContextObject c;
  c.argv = {compiler().path};
  c.argv.insert(c.argv.end(), reference_flags().begin(), reference_flags().end());
  c.argv.insert(c.argv.end(), {"-I" + builtin, "-isystem", eigen_include(), "-c", source});
  std::string key = compiler().version + "\n" + eigen_include() + "\n" + read_file(source, "reference runtime") + "\n" +
                    fingerprint_folder(builtin) + "\n" + command_key(c.argv, root);
  c.path = fmt::format("{}/reference_context-{:016x}.o", folder, fnv1a(key));
  return c;
}

Built build_context_object(const ContextObject& c, const host::CommandBounds& bounds) {
  static std::mutex building;  // the threads of one run wait for one compile
  std::lock_guard<std::mutex> lock(building);
  CacheEntryLock entry(c.path);
  std::string note;
  if (cached_intact(c.path, "reference runtime object", &note)) return {true, "", ""};
  if (!note.empty()) note_cache_repair(note);
  return build_into(c.argv, c.path, bounds);
}

// What builds one library: its command and where it goes.
struct LibraryPlan {
  std::vector<std::string> argv;  // without -o
  std::string path;
  ContextObject context;
};

// Where a run's libraries go, and what all of them link: worked out once per run.
struct BuildSetting {
  std::string builtin, folder;
  ContextObject context;
  host::CommandBounds bounds;  // each compile's time and memory
  RootRelative root;
};

BuildSetting build_setting(const ReferenceBuildOptions& opt) {
  BuildSetting b{opt.runtime_dir.empty() ? builtin_references_dir() : opt.runtime_dir, cache_folder(opt.cache_dir), {},
                 host::CommandBounds{opt.time_limit_s, opt.memory_limit_bytes}, RootRelative(opt.project_root)};
  // A library found there is loaded and run: the folder must be this user's alone. The temporary
  // one's name is known to every user of the machine, so a link there is refused too.
  ensure_private_folder(b.folder, opt.cache_dir.empty() ? "the temporary reference-library folder" : "the reference-library cache",
                        !opt.cache_dir.empty());
  b.context = context_object(b.builtin, b.folder, b.root);
  return b;
}

}  // namespace

std::string reference_includes_key(const std::string& file, const std::string& runtime_dir, const RootRelative& root) {
  const std::string own_dir = fs::path(file).parent_path().string();
  IncludeSearch search;
  search.dirs = {own_dir, runtime_dir.empty() ? builtin_references_dir() : runtime_dir};
  return include_closure_key(read_file(file, "reference source"), file, search, root);
}

namespace {

LibraryPlan plan_library(const std::string& file, const BuildSetting& b) {
  const std::string &builtin = b.builtin, &folder = b.folder;
  const std::string own_dir = fs::path(file).parent_path().string();
  LibraryPlan p;
  p.context = b.context;
  p.argv = {compiler().path};
  p.argv.insert(p.argv.end(), reference_flags().begin(), reference_flags().end());
  p.argv.insert(p.argv.end(), {"-shared", "-I" + own_dir, "-I" + builtin, "-isystem", eigen_include(), file, p.context.path});
  // The context object's name is the hash of its own inputs, so argv covers it.
  std::string key = compiler().version + "\n" + eigen_include() + "\n" + read_file(file, "reference source") + "\n" +
                    reference_includes_key(file, builtin, b.root) + "\n" + fingerprint_folder(builtin) + "\n" + command_key(p.argv, b.root);
  p.path = fmt::format("{}/{}-{:016x}.so", folder, fs::path(file).stem().string(), fnv1a(key));
  return p;
}

// reference.h, with Eigen, precompiled once per cache: parsing it is most of a small reference
// file's compile. A copy of it is precompiled and forced in first (-include); reference.h's
// include guard then keeps the file's own #include of the original out. "" when g++ could not
// make it: the libraries are built as before. The library's name does not depend on it.
std::string precompiled_reference_header(const BuildSetting& b) {
  static std::mutex making;
  std::lock_guard<std::mutex> lock(making);
  const std::string& folder = b.folder;
  const std::string text = read_file(b.builtin + "/reference.h", "reference header");
  std::vector<std::string> flags(reference_flags());
  flags.insert(flags.end(), {"-isystem", eigen_include()});
  std::string key = compiler().path + "\n" + compiler().version + "\n" + text;
  for (const std::string& f : flags) key += f + "\n";
  const std::string dir = fmt::format("{}/reference-pch-{:016x}", folder, fnv1a(key)), header = dir + "/reference.h";
  try {
    fs::create_directories(dir);
    std::string note;
    const bool placed = restore_cached_text(header, text, &note);
    if (!note.empty()) {
      note_cache_repair(note);
      remove_sealed(header + ".gch");  // made from what the copy held
    }
    if (!placed) return "";
    return host::precompile_header(compiler(), flags, header, b.bounds) ? header : "";
  } catch (const std::exception&) {
    return "";
  }
}

ReferenceLibrary build_planned(const LibraryPlan& p, const BuildSetting& b, const std::string& file, const std::string& pch_header,
                               std::chrono::steady_clock::time_point t0) {
  ReferenceLibrary out;
  out.path = p.path;
  const std::string context_source = b.builtin + "/reference_context.cpp";
  if (const Built c = build_context_object(p.context, b.bounds); !c.ok) {
    out.log = failure(context_source, c);
    return out;
  }
  std::vector<std::string> argv = p.argv;
  if (!pch_header.empty()) argv.insert(argv.begin() + 1, {"-include", pch_header});
  const Built lib = build_into(argv, p.path, b.bounds);
  out.log = lib.stopped.empty() ? lib.log : failure(file, lib);  // a compiler's message names the file itself
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.ok = lib.ok;
  return out;
}

// The library of plan p, from the cache when it holds it intact (a damaged one is removed and
// noted, under the entry's lock), else built.
ReferenceLibrary cached_or_built(const LibraryPlan& p, const BuildSetting& b, const std::string& file, const std::string& pch_header) {
  CacheEntryLock lock(p.path);
  std::string note;
  if (cached_intact(p.path, "reference library", &note)) return ReferenceLibrary{true, p.path, "", true, 0, {}};
  ReferenceLibrary out = build_planned(p, b, file, pch_header, std::chrono::steady_clock::now());
  if (!note.empty()) out.notes.insert(out.notes.begin(), note);
  return out;
}

// The libraries left to build, largest first; taken from either end.
class SizeOrderedFiles {
 public:
  explicit SizeOrderedFiles(std::vector<size_t> largest_first) : order_(std::move(largest_first)), back_(order_.size()) {}
  std::optional<size_t> largest() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (front_ == back_) return std::nullopt;
    return order_[front_++];
  }
  std::optional<size_t> smallest() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (front_ == back_) return std::nullopt;
    return order_[--back_];
  }

 private:
  std::mutex mutex_;
  std::vector<size_t> order_;
  size_t front_ = 0, back_;
};

// From this many libraries to build, precompiling reference.h (about two compiles' time) pays.
constexpr int kPrecompileFrom = 3;

}  // namespace

ReferenceLibrary build_reference_library(const std::string& file, const ReferenceBuildOptions& opt) {
  ReferenceBuildOptions one = opt;
  one.jobs = 1;
  return build_reference_libraries({file}, one).at(0);
}

namespace {

// The libraries to build, the largest file first.
std::vector<size_t> largest_first(const std::vector<std::string>& files, const std::vector<std::optional<LibraryPlan>>& plans,
                                  const std::vector<ReferenceLibrary>& out) {
  std::vector<size_t> order;
  for (size_t i = 0; i < files.size(); ++i)
    if (plans[i] && !out[i].cached) order.push_back(i);
  std::vector<uintmax_t> sizes(files.size(), 0);
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    sizes[i] = fs::file_size(files[i], ec);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  return order;
}

// Every repair reaches every library built here, once.
void note_repairs(std::vector<ReferenceLibrary>& out, const std::vector<std::string>& repairs) {
  for (ReferenceLibrary& lib : out)
    if (!lib.cached)
      for (const std::string& r : repairs)
        if (std::find(lib.notes.begin(), lib.notes.end(), r) == lib.notes.end()) lib.notes.push_back(r);
}

}  // namespace

std::vector<ReferenceLibrary> build_reference_libraries(const std::vector<std::string>& files, const ReferenceBuildOptions& opt,
                                                        const LibraryReady& on_ready) {
  std::vector<ReferenceLibrary> out(files.size());
  std::mutex delivering;
  std::vector<std::string> repairs;  // a damaged object or header they were built with concerns every library built here
  auto deliver = [&](size_t i) {
    std::lock_guard<std::mutex> lock(delivering);
    for (std::string& r : take_cache_repairs()) repairs.push_back(std::move(r));
    if (!out[i].cached) out[i].notes.insert(out[i].notes.end(), repairs.begin(), repairs.end());
    if (on_ready) on_ready(i, out[i]);
  };
  std::optional<BuildSetting> setting;
  try {
    setting = build_setting(opt);
  } catch (const std::exception& e) {
    for (size_t i = 0; i < files.size(); ++i) {
      out[i].log = e.what();  // no compiler, no reference runtime
      deliver(i);
    }
    return out;
  }
  std::vector<std::optional<LibraryPlan>> plans(files.size());
  int to_build = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      plans[i] = plan_library(files[i], *setting);
      if (seal_mismatch(plans[i]->path).empty()) out[i] = ReferenceLibrary{true, plans[i]->path, "", true, 0, {}};
      else ++to_build;
    } catch (const std::exception& e) {
      out[i].log = e.what();
    }
    if (!plans[i] || out[i].cached) deliver(i);
  }
  const auto stopped = [&] { return opt.stop && opt.stop->load(); };
  // The object every library links and the precompiled header are one compile each, made side by
  // side (a cold --all's first 14 s on 16 cores was these two, one after the other, on one core).
  // Every library waits for the object; the libraries' builds take it from the cache, or make it
  // again and say why when this made none. Only some wait for the header (header_being_made.h).
  std::thread context_object;
  if (to_build > 0 && !stopped()) context_object = std::thread([&] { build_context_object(setting->context, setting->bounds); });
  std::optional<HeaderBeingMade> pch;
  if (to_build >= kPrecompileFrom && !stopped()) pch.emplace([&] { return precompiled_reference_header(*setting); });
  EarlyCompiles early(opt.jobs);
  // The largest files first: they take longest, and the last of the libraries to be ready sets
  // when the cases waiting for it can start (on 16 cores a cold --all spent 37-48 s here). But
  // the early compiles, without the header, take the smallest: their libraries are ready in
  // seconds, and their cases run while the header and the large ones are made.
  SizeOrderedFiles queue(largest_first(files, plans, out));
  on_threads(std::max(1, std::min<int>(opt.jobs, static_cast<int>(files.size()))), [&](int) {
    for (;;) {
      bool took_early = false;
      const std::string header = stopped() ? "" : header_for_compile(pch ? &*pch : nullptr, early, &took_early);
      const std::optional<size_t> i = took_early ? queue.smallest() : queue.largest();
      if (i && stopped()) out[*i].log = "not built: the run ended before it needed this library";
      else if (i) out[*i] = cached_or_built(*plans[*i], *setting, files[*i], header);
      if (took_early) early.give_back();
      if (!i) return;
      deliver(*i);
    }
  });
  if (context_object.joinable()) context_object.join();
  pch.reset();  // a header still being made is finished, not left to a thread of its own
  // A repair noted after a library was delivered (the object, made by the first build) reaches
  // the libraries in the result all the same.
  for (std::string& r : take_cache_repairs()) repairs.push_back(std::move(r));
  note_repairs(out, repairs);
  return out;
}

}  // namespace hk
