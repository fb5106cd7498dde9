// GPU architectures as data: the limits a compiled kernel is held to when no such GPU is at hand
// (--compile-only), and the ones the host backend's profiles declare, so that `--arch gfx942`
// and `--host-profile mi325x` agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/backend_table.h"

namespace hk {

struct Target {
  std::string arch;       // "sm_90", "gfx942"
  BackendId backend;      // whose GPU it is (platform/backend_table.h)
  std::string example;    // a device of the family, in words
  int warp_size = 32;
  int64_t shared_per_block = 0;        // without opting in
  int64_t shared_per_block_optin = 0;  // the most one block may have
  int64_t registers_per_thread = 0;    // the most the compiler may give a thread (VGPRs on AMD)
  int64_t max_threads_per_block = 1024;
};

const std::vector<Target>& targets();
const Target* find_target(const std::string& arch);  // nullptr when unknown

// The largest block a kernel using `registers` per thread can launch with on t: NVIDIA allocates
// registers per warp in units of 256 from 64 Ki per block; AMD gives each SIMD (4 per CU, a
// workgroup spans them) 512 VGPRs per lane in units of 8.
int64_t max_threads_for_registers(const Target& t, int64_t registers);

}  // namespace hk
