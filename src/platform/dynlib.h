// A shared library opened at run time, so that hkcheck starts where a vendor library is absent.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace hk {

class DynLib {
 public:
  // Tries each candidate (a soname or a path) in order; throws BackendUnavailable listing them.
  static std::unique_ptr<DynLib> open(const std::vector<std::string>& candidates);
  ~DynLib();
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  // Throws BackendUnavailable naming the library and the symbol when it is missing.
  void* symbol(const char* name) const;
  void* try_symbol(const char* name) const;
  const std::string& path() const { return path_; }

  template <typename F>
  F get(const char* name) const { return reinterpret_cast<F>(symbol(name)); }

 private:
  DynLib(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

}  // namespace hk
