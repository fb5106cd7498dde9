// The parameters a host kernel library lists for each entry (hk_host_params_<name>, hk_host.h):
// one line per parameter, "KIND BYTES TYPE". The kernel process passes the same text on to the
// worker (kernel_server.h), so one reader serves both.
#pragma once

#include <string>
#include <vector>

#include "platform/backend.h"

namespace hk::host {

// Throws BackendError for text that is not such a list.
std::vector<KernelParam> parse_host_params(const std::string& text);
// The list as text again, for the kernel process's reply to a load.
std::string host_params_text(const std::vector<KernelParam>& params);

}  // namespace hk::host
