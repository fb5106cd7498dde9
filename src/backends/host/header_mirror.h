// The headers a host compile reaches, rewritten for the host (source_rewrite.h) in a copy of their
// folders when any of them needs it: a tile library's headers carry AMD inline assembly and
// built-ins that the kernel file never names, and a CPU compiler refuses them on sight.
#pragma once

#include <string>
#include <vector>

namespace hk::host {

struct MirroredHeaders {
  std::vector<std::string> options;  // the compile's options, include folders pointing into the copy
  std::string root;                  // the copy's folder ("" when nothing needed rewriting)
};

// source: the kernel text as compiled (its folder is source_path's); into: an empty folder the
// copy may be made in. Every reached header is copied to into + its absolute path, with a #line
// that names the original, so that messages, __FILE__ and relative includes are the original's.
MirroredHeaders mirror_headers_for_host(const std::string& source, const std::string& source_path,
                                        const std::vector<std::string>& options, const std::string& into);

}  // namespace hk::host
