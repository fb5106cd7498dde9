// The kernel source line of a code address in a host kernel library, for race reports: the
// library is built with line tables (-g1) under --races, and addr2line reads them.
#pragma once

#include <string>

namespace hk::host {

// "file:line", or "" when it cannot be told (no addr2line, no line table, not a kernel library).
std::string source_line(const void* code);

}  // namespace hk::host
