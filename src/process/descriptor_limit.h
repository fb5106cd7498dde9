// The soft limit on open descriptors, raised to the hard one: a run holds a pipe or three per
// worker, a lock per cache entry it makes, and on the host backend each loaded kernel library at a
// descriptor of its own from 64 up (host_backend.cpp). Under `ulimit -n 40` every host case was an
// ERROR "memfd: Invalid argument"; now the limit is raised where it can be, and said where not.
#pragma once

namespace hk {

// Raises this process's soft RLIMIT_NOFILE to its hard limit (at most 65536); children inherit it.
void raise_descriptor_limit();

// Below this many descriptors a run cannot hold its workers' pipes, journal and locks.
inline constexpr unsigned long kLeastDescriptors = 32;

// This process's soft RLIMIT_NOFILE (0 when unlimited or unknown).
unsigned long descriptor_limit();

}  // namespace hk
