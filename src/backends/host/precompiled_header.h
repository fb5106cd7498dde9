// A header precompiled by g++ once per cache: a header every compile includes first (the host
// prelude, reference.h with Eigen) is parsed once, not once per compile. g++ uses header.gch in
// place of the header when the flags and macros allow it and reads the header otherwise, so a
// missing or unusable one costs time, never a result.
#pragma once

#include <string>
#include <vector>

#include "backends/host/cxx_toolchain.h"

namespace hk::host {

// Makes header.gch beside header with exactly flags, unless it is there and matches its seal
// (cache_seal.h: a damaged one is made again, and noted); true when it is there afterwards (never
// with clang). Built beside, sealed and renamed: a concurrent run never reads half of one. The
// compile is stopped after limit_s seconds (0: no limit).
bool precompile_header(const CompilerInfo& cxx, const std::vector<std::string>& flags, const std::string& header, const CommandBounds& bounds = {});

}  // namespace hk::host
