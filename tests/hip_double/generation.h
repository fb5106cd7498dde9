// Which ROCm generation a build of the double plays. Symbols exist or not at link time, so each
// generation is a library of its own (exports_rocm5.map, exports_rocm6.map), built from the same
// objects plus generation.cpp compiled for it; LD_LIBRARY_PATH picks one.
#pragma once

namespace hk::hip_double {

struct RocmGeneration {
  int major;            // 5 or 6
  int runtime_version;  // what hipRuntimeGetVersion and hipDriverGetVersion answer
};

extern const RocmGeneration kGeneration;

}  // namespace hk::hip_double
