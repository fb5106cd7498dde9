// Faults the double injects on request, so that hkcheck's handling of a GPU going wrong is tested
// without one. Each is an environment variable naming a kernel as hipModuleGetFunction is asked
// for it (the name expression the manifest's entry gives: for an HK_KERNEL, its name), so a case
// rerun alone in a fresh worker meets the same fault:
//   HKCHECK_HIP_DOUBLE_ILLEGAL_ADDRESS=K  launching K fails with hipErrorIllegalAddress, and so
//                                         does every later call of the process (sticky)
//   HKCHECK_HIP_DOUBLE_LOSE_DEVICE=K      launching K succeeds, then the device is gone: every
//                                         later call fails with hipErrorNoDevice
//   HKCHECK_HIP_DOUBLE_MISSING_ENTRY=K    hipModuleGetFunction answers hipErrorNotFound for K
//   HKCHECK_HIP_DOUBLE_MAX_ALLOC=BYTES    hipMalloc of more than BYTES fails with hipErrorOutOfMemory
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hk::hip_double {

struct Faults {
  std::string illegal_address;
  std::string lose_device;
  std::string missing_entry;
  std::optional<uint64_t> max_alloc;

  // Throws std::invalid_argument naming the variable whose value is not valid.
  static Faults from_environment();
};

}  // namespace hk::hip_double
