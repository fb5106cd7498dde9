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

namespace hk {
namespace fs = std::filesystem;

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
