// The host prelude on disk for a compile. With a cache folder, it is written once into a folder
// named by its content and the compiler's flags, and g++ precompiles hk_host.h there: every
// kernel compile includes it first, and parsing it again cost more than half of a small kernel's
// compile. Without one (--no-cache), or when the folder cannot be made, each compile writes the
// prelude into its own temporary folder, as before.
#pragma once

#include <string>
#include <vector>

#include "backends/host/cxx_toolchain.h"

namespace hk::host {

// The include folder holding the prelude (and hk_host.h.gch beside hk_host.h when g++ could
// precompile it) for compiles with exactly base_flags, under cache_dir; "" when cache_dir is ""
// or the folder cannot be made.
std::string cached_prelude_folder(const CompilerInfo& cxx, const std::vector<std::string>& base_flags, const std::string& cache_dir);

// Writes the prelude headers under folder (an "include" tree).
void write_prelude(const std::string& folder);

}  // namespace hk::host
