// What is built in place of device_part.cpp, app/mutate/clang_tokens.cpp and libclang_api.cpp when
// libclang's headers were not found at configure time (CMakeLists.txt): hkcheck builds and runs,
// a kernel file is compiled as it is (the compile's note says why), and mutate says what to install.
#include "platform/backend.h"
#include "compile/device_part.h"
#include "app/mutate/clang_tokens.h"

namespace hk {
namespace without_libclang {

constexpr const char* kWhy =
    "this hkcheck was built without libclang's headers (clang-c/Index.h), so it cannot read a kernel file's device part or its "
    "tokens: install libclang-dev (Debian/Ubuntu: libclang-14-dev) and build hkcheck again";

}  // namespace without_libclang

DevicePart device_part(const std::string&, const std::string&, const std::vector<std::string>&, bool, const std::vector<std::string>&,
                       const UsedDeclarations&, const std::vector<IncluderText>&) {
  throw BackendUnavailable(without_libclang::kWhy);
}

std::vector<SourceToken> tokenize_source(const std::string&, const std::string&) { throw BackendUnavailable(without_libclang::kWhy); }

}  // namespace hk
