#include "platform/dynlib.h"

#include <dlfcn.h>

#include "platform/backend.h"

namespace hk {

std::unique_ptr<DynLib> DynLib::open(const std::vector<std::string>& candidates) {
  std::string tried;
  for (const std::string& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return std::unique_ptr<DynLib>(new DynLib(h, c));
    const char* err = dlerror();
    tried += "\n  " + c + ": " + (err ? err : "not found");
  }
  throw BackendUnavailable("cannot load " + (candidates.empty() ? std::string("?") : candidates.front()) + tried);
}

DynLib::~DynLib() {
  if (handle_) dlclose(handle_);
}

void* DynLib::try_symbol(const char* name) const { return dlsym(handle_, name); }

void* DynLib::symbol(const char* name) const {
  void* p = dlsym(handle_, name);
  if (!p) throw BackendUnavailable(path_ + " has no symbol " + name + " (too old a version?)");
  return p;
}

}  // namespace hk
