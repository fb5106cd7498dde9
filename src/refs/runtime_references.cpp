#include "refs/runtime_references.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <filesystem>
#include <fmt/format.h>
#include <mutex>

#include "compile/cache_seal.h"
#include "model/dtype.h"
#include "util/file_util.h"

#ifndef HKCHECK_SOURCE_REFERENCES
#define HKCHECK_SOURCE_REFERENCES "references"
#endif

namespace hk {
namespace fs = std::filesystem;

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

ReferenceIndex scan_references(const std::vector<std::string>& folders, const std::vector<std::string>& files, const std::string& builtin) {
  ReferenceIndex idx;
  std::error_code builtin_ec;
  const std::string builtin_canonical = builtin.empty() ? "" : fs::weakly_canonical(builtin, builtin_ec).string();
  const auto is_builtin = [&](const std::string& file) { return !builtin_canonical.empty() && fs::path(file).parent_path() == builtin_canonical; };
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
      if (fresh || it->second == file) continue;
      if (is_builtin(it->second) && !is_builtin(file)) {
        idx.notes[name] = fmt::format("reference '{}' is the project's, from {}: it overrides the built-in one of {}", name, file, it->second);
        it->second = file;
      } else {
        idx.errors.push_back(fmt::format("reference '{}' is defined in {} and again in {}", name, it->second, file));
      }
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

bool holds_reference_runtime(const std::string& folder) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(folder) / "reference.h", ec) && fs::is_regular_file(fs::path(folder) / "reference_context.cpp", ec);
}

namespace {

// The library's bytes as sealed when it was built, in a private memory file, and loaded from
// there: what runs is what was checked, and nothing done to the cache file afterwards (truncating
// it, say) reaches the mapped code.
void* open_sealed_library(const std::string& library) {
  std::string why;
  const std::optional<std::string> bytes = read_sealed(library, &why);
  if (!bytes)
    throw std::runtime_error(fmt::format("the reference library {} is damaged ({}): it was changed after this run built it, and is "
                                         "not used (the next run builds it again)", library, why));
  const int fd = memfd_create("hkcheck-reference", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot load the reference library {}: memfd_create: {}", library, std::strerror(errno)));
  size_t done = 0;
  while (done < bytes->size()) {
    const ssize_t n = ::write(fd, bytes->data() + done, bytes->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error(fmt::format("cannot load the reference library {}: writing its copy: {}", library, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  // The descriptor stays open: dlopen knows a library by its path, and a number closed and
  // reused would hand back the library loaded before under it.
  void* handle = dlopen(fmt::format("/proc/self/fd/{}", fd).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    ::close(fd);
    const char* err = dlerror();
    throw std::runtime_error(fmt::format("cannot load the reference library {}: {}", library, err ? err : "unknown error"));
  }
  return handle;
}

}  // namespace

const ref::Function* load_reference(const std::string& library, const std::string& name) {
  static std::mutex m;
  static std::map<std::string, void*> loaded;
  std::lock_guard<std::mutex> lock(m);
  void*& handle = loaded[library];
  if (!handle) {
    try {
      // No library: the references linked into this program (tests that hold them), if any.
      handle = library.empty() ? dlopen(nullptr, RTLD_NOW) : open_sealed_library(library);
    } catch (...) {
      loaded.erase(library);
      throw;
    }
    if (!handle) {
      loaded.erase(library);
      throw std::runtime_error("cannot open this program's own references");
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
  // References call this once per element of an output: the name is parsed once per thread and
  // dtype, not 8 million times for a 2048 x 4096 product.
  thread_local std::string parsed_name;
  thread_local std::optional<DType> parsed;
  if (!parsed || dtype != parsed_name) {
    parsed = parse_dtype(dtype);
    if (!parsed) throw std::runtime_error("round_to: unknown dtype '" + dtype + "'");
    parsed_name = dtype;
  }
  return round_to_dtype(*parsed, v);
}

}  // namespace hk
