// What the host dialect cannot take as macros, rewritten before the host compile, each on its own
// line so that the compiler's line numbers stay the user's:
// - `extern __shared__ T name[];` (with or without an alignment) becomes a pointer to the running
//   block's dynamic shared memory; at namespace scope, a macro of the same meaning;
// - constructs the CPU cannot run (inline PTX `asm`, tensor-core `wmma`/`mma`) become an #error
//   on that line that names the construct.
#pragma once

#include <string>

namespace hk::host {

struct HostSource {
  std::string text;      // the source, rewritten
  std::string preamble;  // macros for namespace-scope extern __shared__ arrays, to put before it
};

HostSource rewrite_for_host(const std::string& source);

}  // namespace hk::host
