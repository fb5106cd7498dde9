// The "device" the host backend declares: the limits a GPU would enforce, so that HW_LIMIT
// verdicts (shared memory, block size) and warp-size-dependent code paths can be checked
// without that GPU. Chosen with --host-profile.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hk {

struct HostProfile {
  std::string name;      // what --host-profile takes
  std::string emulates;  // in words
  std::string arch;      // the architecture whose limits these are, e.g. "sm_90"
  int warp_size = 32;
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block{1024, 1024, 64};
  std::array<int64_t, 3> max_grid{2147483647, 65535, 65535};
  int64_t shared_per_block = 0;
  int64_t shared_per_block_optin = 0;
};

const std::vector<HostProfile>& host_profiles();
// nullptr when no profile has that name.
const HostProfile* find_host_profile(const std::string& name);
std::string host_profile_names();  // "h100, mi325x, mi355x"
inline constexpr const char* kDefaultHostProfile = "h100";

}  // namespace hk
