// The double's "code object": the shared library the host compiler built (an ELF file, as a real
// code object is one), followed by a table naming its kernels: the lowered names hipRTC gave and
// the host library's entry symbols. hipModuleLoadData gets only a pointer, as a real runtime
// does, and finds the table where the ELF file ends.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace hk::hip_double {

struct CodeObject {
  std::string library;
  std::map<std::string, std::string> entries;  // lowered name -> the library's entry symbol
};

std::string pack_code_object(const CodeObject& code);
// Nothing, and why, when image is not a host shared library followed by the double's table (an
// AMDGPU code object from a real hipRTC, say).
std::optional<CodeObject> unpack_code_object(const void* image, std::string* why);

}  // namespace hk::hip_double
