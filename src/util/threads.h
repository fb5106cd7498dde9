// Work spread over threads of its own: the one pool every part of hkcheck uses (a run's workers,
// compile-only's compilers, the reference builds, the compile-ahead feeders, mutants, the host
// backend's blocks).
#pragma once

#include <functional>

namespace hk {

// Runs body(t) for t in [0, n), each on a thread of its own (the caller only waits: a body may
// block on what the caller's thread would be interrupted by), and returns when every one has ended. The first exception that escapes a body is rethrown here, once all
// have ended (a thread's exception would otherwise end the process).
void on_threads(int n, const std::function<void(int t)>& body);

}  // namespace hk
