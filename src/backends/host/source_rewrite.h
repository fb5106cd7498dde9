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

// A header the kernel reaches (a tile library's), rewritten for the host compile lazily: inline
// assembly that only waits or schedules vanishes, s_barrier is __syncthreads(), and any other
// instruction or AMD built-in the prelude does not emulate becomes a call that stops the case
// naming it and its line, when and only when it runs; a library defines far more than a kernel
// uses. Line numbers are kept.
std::string rewrite_header_for_host(const std::string& text);

}  // namespace hk::host
