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
#include "file_util.h"
#include "fnv1a.h"
#include "header_fingerprint.h"
#include "runtime_references.h"

#ifndef HKCHECK_EIGEN_INCLUDE
#define HKCHECK_EIGEN_INCLUDE "/usr/include/eigen3"
#endif

namespace hk {
namespace fs = std::filesystem;
namespace {

// Flags of every reference compile; part of the cache key. -O2 without -march keeps IEEE double
// arithmetic exactly as written (no FMA contraction on x86-64's baseline).
const std::vector<std::string> kFlags = {"-std=c++17", "-O2", "-DNDEBUG", "-fPIC"};

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
};

Built build_into(const std::vector<std::string>& argv, const std::string& path) {
  const host::CommandRun r = host::run_command_into(argv, path);
  Built out{r.started && r.exit_code == 0, r.output};
  if (!out.ok && out.log.empty()) out.log = fmt::format("the compiler exited with {}", r.exit_code);
  return out;
}

// reference_context.cpp is the same in every library: it is compiled once per cache into an
// object that each library links (compiled with each reference file, it cost a CPU-second each).
// Its name is the hash of what builds it.
struct ContextObject {
  std::vector<std::string> argv;
  std::string path;
};

ContextObject context_object(const std::string& builtin, const std::string& folder) {
  const std::string source = builtin + "/reference_context.cpp";
  ContextObject c;
  c.argv = {compiler().path};
  c.argv.insert(c.argv.end(), kFlags.begin(), kFlags.end());
  c.argv.insert(c.argv.end(), {"-I" + builtin, "-isystem", eigen_include(), "-c", source});
  std::string key = compiler().version + "\n" + eigen_include() + "\n" + read_file(source, "reference runtime") + "\n" +
                    fingerprint_folder(builtin);
  for (const std::string& a : c.argv) key += a + "\n";
  c.path = fmt::format("{}/reference_context-{:016x}.o", folder, fnv1a(key));
  return c;
}

Built build_context_object(const ContextObject& c) {
  static std::mutex building;  // the threads of one run wait for one compile
  std::lock_guard<std::mutex> lock(building);
  if (fs::exists(c.path)) return {true, ""};
  return build_into(c.argv, c.path);
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
};

BuildSetting build_setting(const std::string& cache_dir) {
  BuildSetting b{builtin_references_dir(), cache_folder(cache_dir), {}};
  fs::create_directories(b.folder);
  b.context = context_object(b.builtin, b.folder);
  return b;
}

LibraryPlan plan_library(const std::string& file, const BuildSetting& b) {
  const std::string &builtin = b.builtin, &folder = b.folder;
  const std::string own_dir = fs::path(file).parent_path().string();
  LibraryPlan p;
  p.context = b.context;
  p.argv = {compiler().path};
  p.argv.insert(p.argv.end(), kFlags.begin(), kFlags.end());
  p.argv.insert(p.argv.end(), {"-shared", "-I" + own_dir, "-I" + builtin, "-isystem", eigen_include(), file, p.context.path});
  // The context object's name is the hash of its own inputs, so argv covers it.
  std::string key = compiler().version + "\n" + eigen_include() + "\n" + read_file(file, "reference source") + "\n" +
                    fingerprint_folder(own_dir) + "\n" + fingerprint_folder(builtin);
  for (const std::string& a : p.argv) key += a + "\n";
  p.path = fmt::format("{}/{}-{:016x}.so", folder, fs::path(file).stem().string(), fnv1a(key));
  return p;
}

// reference.h, with Eigen, precompiled once per cache: parsing it is most of a small reference
// file's compile. A copy of it is precompiled and forced in first (-include); reference.h's
// include guard then keeps the file's own #include of the original out. "" when g++ could not
// make it: the libraries are built as before. The library's name does not depend on it.
std::string precompiled_reference_header(const std::string& folder) {
  static std::mutex making;
  std::lock_guard<std::mutex> lock(making);
  const std::string text = read_file(builtin_references_dir() + "/reference.h", "reference header");
  std::vector<std::string> flags(kFlags);
  flags.insert(flags.end(), {"-isystem", eigen_include()});
  std::string key = compiler().path + "\n" + compiler().version + "\n" + text;
  for (const std::string& f : flags) key += f + "\n";
  const std::string dir = fmt::format("{}/reference-pch-{:016x}", folder, fnv1a(key)), header = dir + "/reference.h";
  try {
    fs::create_directories(dir);
    std::string err;
    if (!fs::exists(header) && !write_file_atomic(header, text, &err)) return "";
    return host::precompile_header(compiler(), flags, header) ? header : "";
  } catch (const std::exception&) {
    return "";
  }
}

ReferenceLibrary build_planned(const LibraryPlan& p, const std::string& pch_header, std::chrono::steady_clock::time_point t0) {
  ReferenceLibrary out;
  out.path = p.path;
  if (const Built c = build_context_object(p.context); !c.ok) {
    out.log = "compiling " + builtin_references_dir() + "/reference_context.cpp: " + c.log;
    return out;
  }
  std::vector<std::string> argv = p.argv;
  if (!pch_header.empty()) argv.insert(argv.begin() + 1, {"-include", pch_header});
  const Built lib = build_into(argv, p.path);
  out.log = lib.log;
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.ok = lib.ok;
  return out;
}

// From this many libraries to build, precompiling reference.h (about two compiles' time) pays.
constexpr int kPrecompileFrom = 3;

}  // namespace

ReferenceLibrary build_reference_library(const std::string& file, const std::string& cache_dir) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const LibraryPlan p = plan_library(file, build_setting(cache_dir));
    if (fs::exists(p.path)) return ReferenceLibrary{true, p.path, "", true, 0};
    return build_planned(p, "", t0);
  } catch (const std::exception& e) {
    ReferenceLibrary out;
    out.log = e.what();
    return out;
  }
}

std::vector<ReferenceLibrary> build_reference_libraries(const std::vector<std::string>& files, const std::string& cache_dir, int jobs) {
  std::vector<ReferenceLibrary> out(files.size());
  std::optional<BuildSetting> setting;
  try {
    setting = build_setting(cache_dir);
  } catch (const std::exception& e) {
    for (ReferenceLibrary& lib : out) lib.log = e.what();  // no compiler, no reference runtime
    return out;
  }
  std::vector<std::optional<LibraryPlan>> plans(files.size());
  int to_build = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      plans[i] = plan_library(files[i], *setting);
      if (fs::exists(plans[i]->path)) out[i] = ReferenceLibrary{true, plans[i]->path, "", true, 0};
      else ++to_build;
    } catch (const std::exception& e) {
      out[i].log = e.what();
    }
  }
  const std::string pch = to_build >= kPrecompileFrom ? precompiled_reference_header(setting->folder) : "";
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, std::min<int>(jobs, static_cast<int>(files.size()))); ++j)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < files.size();)
        if (plans[i] && !out[i].cached) out[i] = build_planned(*plans[i], pch, std::chrono::steady_clock::now());
    });
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace hk
