#include "compile/line_directive.h"

#include <fmt/format.h>

namespace hk {

std::string line_directive(int line, const std::string& path) {
  std::string quoted;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') quoted += std::string("\\") + c;
    else if (u < 0x20 || u == 0x7f) quoted += fmt::format("\\{:03o}", u);  // octal: never runs into the next character
    else quoted += c;
  }
  return fmt::format("#line {} \"{}\"", line, quoted);
}

}  // namespace hk
