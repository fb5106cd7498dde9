#include "platform/libclang_api.h"

#include <memory>
#include <mutex>

#include "platform/dynlib.h"

namespace hk {

void load_libclang() {
  static std::once_flag once;
  static std::unique_ptr<DynLib> lib;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
#ifdef HKCHECK_LIBCLANG_PATH
    candidates.push_back(HKCHECK_LIBCLANG_PATH);
#endif
    for (int v = 19; v >= 14; --v) candidates.push_back("libclang-" + std::to_string(v) + ".so.1");
    candidates.push_back("libclang.so.1");
    lib = DynLib::open(candidates);
#define HK_LIBCLANG_BIND(name) name = lib->get<decltype(&::name)>(#name);
    HK_LIBCLANG_FUNCTIONS(HK_LIBCLANG_BIND)
#undef HK_LIBCLANG_BIND
  });
  if (!clang_parseTranslationUnit2) throw std::runtime_error("libclang could not be opened");
}

}  // namespace hk
