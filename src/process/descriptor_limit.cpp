#include "process/descriptor_limit.h"

#include <sys/resource.h>

#include <algorithm>

namespace hk {

void raise_descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  const rlim_t want = lim.rlim_max == RLIM_INFINITY ? rlim_t{65536} : std::min<rlim_t>(lim.rlim_max, 65536);
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < want) {
    lim.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

unsigned long descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<unsigned long>(lim.rlim_cur);
}

}  // namespace hk
