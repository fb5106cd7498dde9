#include "backends/host/dynamic_shared.h"

#include <cstring>
#include <fmt/format.h>

namespace hk::host {
namespace {
// Not a plausible float, half or small integer, so a stored value differs from it.
unsigned char pattern(size_t i) { return static_cast<unsigned char>(0xC5 ^ (i * 0x1D)); }
}  // namespace

DynamicShared::DynamicShared(size_t bytes) : bytes_(bytes), memory_(bytes + 16 + kGuardBytes) {
  data_ = memory_.data() + (16 - reinterpret_cast<uintptr_t>(memory_.data()) % 16) % 16;
}

void DynamicShared::arm() {
  std::memset(data_, kSharedPoison, bytes_);
  for (size_t i = 0; i < kGuardBytes; ++i) data_[bytes_ + i] = pattern(i);
}

std::string DynamicShared::check(const std::string& block) const {
  size_t first = kGuardBytes, last = 0, changed = 0;
  for (size_t i = 0; i < kGuardBytes; ++i) {
    if (data_[bytes_ + i] == pattern(i)) continue;
    first = std::min(first, i);
    last = i;
    ++changed;
  }
  if (changed == 0) return "";
  return fmt::format("block {} wrote {} byte(s) past the end of its {} bytes of dynamic shared memory (offsets +{}..+{} from the end): "
                     "an index past the size the launch gives",
                     block, changed, bytes_, first, last);
}

}  // namespace hk::host
