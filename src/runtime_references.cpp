#include "runtime_references.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <thread>

#include "backends/host/host_compiler.h"
#include "dtype.h"
#include "file_util.h"
#include "fnv1a.h"
#include "header_fingerprint.h"

#ifndef HKCHECK_EIGEN_INCLUDE
#define HKCHECK_EIGEN_INCLUDE "/usr/include/eigen3"
#endif
#ifndef HKCHECK_SOURCE_REFERENCES
#define HKCHECK_SOURCE_REFERENCES "references"
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

}  // namespace

std::vector<std::string> reference_names_in(const std::string& source) {
  std::vector<std::string> names;
  const std::string kMacro = "HK_REFERENCE(";
  for (size_t i = 0; i < source.size(); ++i) {
    if (source.compare(i, 2, "//") == 0) {
      i = source.find('\n', i);
      if (i == std::string::npos) break;
    } else if (source.compare(i, 2, "/*") == 0) {
      i = source.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else if (source.compare(i, kMacro.size(), kMacro) == 0 && (i == 0 || !(std::isalnum((unsigned char)source[i - 1]) || source[i - 1] == '_'))) {
      const size_t start = i + kMacro.size(), end = source.find(')', start);
      if (end == std::string::npos) break;
      std::string name = source.substr(start, end - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty() && name != "name") names.push_back(name);  // "name": the macro's own definition
      i = end;
    }
  }
  return names;
}

ReferenceIndex scan_references(const std::vector<std::string>& folders, const std::vector<std::string>& files) {
  ReferenceIndex idx;
  std::vector<std::string> sources;
  for (const std::string& dir : folders) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    const std::string canonical = fs::weakly_canonical(dir, ec).string();
    if (std::find(idx.searched.begin(), idx.searched.end(), canonical) != idx.searched.end()) continue;
    idx.searched.push_back(canonical);
    std::vector<std::string> here;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".cpp" && it->path().filename() != "reference_context.cpp") here.push_back(fs::weakly_canonical(it->path(), ec).string());
    std::sort(here.begin(), here.end());
    sources.insert(sources.end(), here.begin(), here.end());
  }
  for (const std::string& f : files) {
    std::error_code ec;
    const std::string canonical = fs::weakly_canonical(f, ec).string();
    if (std::find(sources.begin(), sources.end(), canonical) != sources.end()) continue;
    idx.searched.push_back(canonical);
    sources.push_back(canonical);
  }
  for (const std::string& file : sources) {
    std::string text;
    try {
      text = read_file(file, "reference source");
    } catch (const std::exception& e) {
      idx.errors.push_back(e.what());
      continue;
    }
    for (const std::string& name : reference_names_in(text)) {
      const auto [it, fresh] = idx.file_of.emplace(name, file);
      if (!fresh && it->second != file)
        idx.errors.push_back(fmt::format("reference '{}' is defined in {} and again in {}", name, it->second, file));
    }
  }
  return idx;
}

std::string builtin_references_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "hkcheck" / "references";
    if (fs::exists(installed / "reference.h", ec)) return installed.string();
  }
  return HKCHECK_SOURCE_REFERENCES;
}

namespace {

struct Built {
  bool ok = false;
  std::string log;
};

// Runs argv with "-o" a temporary name beside path, then renames it into place: a concurrent run
// never loads half a file.
Built build_into(std::vector<std::string> argv, const std::string& path) {
  Built out;
  const std::string tmp = fmt::format("{}.tmp-{}-{}", path, getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  argv.insert(argv.end(), {"-o", tmp});
  const host::CommandRun r = host::run_command(argv, tmp + ".log");
  std::error_code ec;
  fs::remove(tmp + ".log", ec);
  out.log = r.output;
  if (!r.started || r.exit_code != 0) {
    fs::remove(tmp, ec);
    if (out.log.empty()) out.log = fmt::format("the compiler exited with {}", r.exit_code);
    return out;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    out.log = fmt::format("cannot move {} into place: {}", path, ec.message());
    return out;
  }
  out.ok = true;
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

}  // namespace

ReferenceLibrary build_reference_library(const std::string& file, const std::string& cache_dir) {
  ReferenceLibrary out;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const std::string builtin = builtin_references_dir();
    const std::string own_dir = fs::path(file).parent_path().string();
    const std::string folder = cache_folder(cache_dir);
    fs::create_directories(folder);
    const ContextObject context = context_object(builtin, folder);
    std::vector<std::string> argv = {compiler().path};
    argv.insert(argv.end(), kFlags.begin(), kFlags.end());
    argv.insert(argv.end(), {"-shared", "-I" + own_dir, "-I" + builtin, "-isystem", eigen_include(), file, context.path});
    // The context object's name is the hash of its own inputs, so argv covers it.
    std::string key = compiler().version + "\n" + eigen_include() + "\n" + read_file(file, "reference source") + "\n" +
                      fingerprint_folder(own_dir) + "\n" + fingerprint_folder(builtin);
    for (const std::string& a : argv) key += a + "\n";
    out.path = fmt::format("{}/{}-{:016x}.so", folder, fs::path(file).stem().string(), fnv1a(key));
    if (fs::exists(out.path)) {
      out.ok = out.cached = true;
      return out;
    }
    if (const Built c = build_context_object(context); !c.ok) {
      out.log = "compiling " + builtin + "/reference_context.cpp: " + c.log;
      return out;
    }
    const Built lib = build_into(argv, out.path);
    out.log = lib.log;
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.ok = lib.ok;
  } catch (const std::exception& e) {
    out.log = e.what();
  }
  return out;
}

std::vector<ReferenceLibrary> build_reference_libraries(const std::vector<std::string>& files, const std::string& cache_dir, int jobs) {
  std::vector<ReferenceLibrary> out(files.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, std::min<int>(jobs, static_cast<int>(files.size()))); ++j)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < files.size();) out[i] = build_reference_library(files[i], cache_dir);
    });
  for (std::thread& t : pool) t.join();
  return out;
}

const ref::Function* load_reference(const std::string& library, const std::string& name) {
  static std::mutex m;
  static std::map<std::string, void*> loaded;
  std::lock_guard<std::mutex> lock(m);
  void*& handle = loaded[library];
  if (!handle) {
    // No library: the references linked into this program (tests that hold them), if any.
    handle = library.empty() ? dlopen(nullptr, RTLD_NOW) : dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      loaded.erase(library);
      throw std::runtime_error(fmt::format("cannot load the reference library {}: {}", library, why ? why : "unknown error"));
    }
  }
  auto abi = reinterpret_cast<int (*)()>(dlsym(handle, "hk_reference_abi"));
  auto find = reinterpret_cast<const ref::Function* (*)(const char*)>(dlsym(handle, "hk_reference_find"));
  if (library.empty() && (!abi || !find))
    throw std::runtime_error("reference '" + name + "' was given no library, and this program has no references built in");
  if (!abi || !find || abi() != HK_REFERENCE_ABI)
    throw std::runtime_error(fmt::format("{} was built for another hkcheck (reference ABI {}, this one {})", library, abi ? abi() : -1,
                                         HK_REFERENCE_ABI));
  const ref::Function* f = find(name.c_str());
  if (!f) throw std::runtime_error(fmt::format("{} defines no reference '{}'", library, name));
  return f;
}

double round_for_reference(const std::string& dtype, double v) {
  const auto t = parse_dtype(dtype);
  if (!t) throw std::runtime_error("round_to: unknown dtype '" + dtype + "'");
  return round_to_dtype(*t, v);
}

}  // namespace hk
