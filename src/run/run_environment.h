// What a run learns about where it runs: its own binary, the cache folder, the host, and how
// many workers and threads the machine's cores allow.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/run_info.h"

namespace hk {

// The running binary (from /proc/self/exe), else argv0.
std::string self_exe(const char* argv0);

// $XDG_CACHE_HOME/hkcheck, else ~/.cache/hkcheck, else "" (no cache).
std::string default_cache_dir();

// Who ran what, when: the part of a report's run record every mode fills the same way.
RunInfo run_info(const std::vector<std::string>& command, const std::vector<std::string>& manifest_errors);

int default_jobs(size_t devices);
int worker_cpu_threads();

}  // namespace hk
