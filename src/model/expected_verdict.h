// A verdict a manifest declares a case is known to reach ("expect"; expectation.h applies it).
#pragma once

#include <string>

namespace hk {

struct ExpectedVerdict {
  std::string status;  // FAIL CRASH TIMEOUT COMPILE_ERROR ERROR FLAKY LEAK HW_LIMIT TOO_LARGE
  std::string arch;    // empty: any device; else e.g. "sm_90", "gfx942", or "host": the host backend, any profile
  std::string why;
};

}  // namespace hk
