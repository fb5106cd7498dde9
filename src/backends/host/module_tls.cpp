#include "backends/host/module_tls.h"

#include <dlfcn.h>
#include <link.h>

// glibc's: the address of a module's thread-local variable for the calling thread, allocating
// the module's block on first use. Its argument is {module id, offset} (x86-64 and AArch64).
extern "C" void* __tls_get_addr(void* index);

namespace hk::host {
namespace {

struct TlsIndex {
  unsigned long module, offset;
};

}  // namespace

ModuleTls module_tls(void* library) {
  size_t modid = 0;
  if (dlinfo(library, RTLD_DI_TLS_MODID, &modid) != 0 || modid == 0) return {};
  struct Search {
    size_t modid, bytes = 0;
  } search{modid};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_tls_modid != s->modid) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_TLS) s->bytes = info->dlpi_phdr[i].p_memsz;
        return 1;
      },
      &search);
  if (search.bytes == 0) return {};
  TlsIndex index{modid, 0};
  return ModuleTls{reinterpret_cast<uintptr_t>(__tls_get_addr(&index)), search.bytes};
}

}  // namespace hk::host
