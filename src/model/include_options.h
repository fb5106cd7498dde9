// The compiler options that name an include folder or a file read before the source: one table
// that the include walk (compile/include_closure.h) and the option allow-list
// (model/allowed_options.h) both read, so the two never disagree on what an option reaches.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace hk {

// An option that names an include folder or a file read before the source, as compilers spell
// it: -I, -isystem, -idirafter, -iquote, -include, -imacros take the next string or a joined one
// (-I foo, -Ifoo); NVRTC's --include-path=, --system-include=, --pre-include= a joined one.
// The one table both the include walk and the option allow-list (model/allowed_options.h) read.
enum class IncludeOptionKind { dir, quote, system, after, forced };
struct IncludeOption {
  IncludeOptionKind kind;
  std::string value;  // the folder or file
  size_t strings;     // 1 (joined) or 2 (the next string): how many of the options it takes
};
std::optional<IncludeOption> include_option_at(const std::vector<std::string>& options, size_t i);

}  // namespace hk
