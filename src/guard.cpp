#include "guard.h"

#include <fmt/format.h>

namespace hk {

std::vector<uint8_t> guard_pattern() { return std::vector<uint8_t>(kGuardBytes, kGuardByte); }

std::optional<GuardViolation> check_guard(const std::string& tensor, const std::string& side, const std::vector<uint8_t>& region) {
  GuardViolation g{tensor, side, 0, 0, 0};
  const int64_t base = side == "before" ? -static_cast<int64_t>(region.size()) : 0;
  for (size_t i = 0; i < region.size(); ++i) {
    if (region[i] == kGuardByte) continue;
    const int64_t offset = base + static_cast<int64_t>(i);
    if (g.bytes == 0) g.first_offset = offset;
    g.last_offset = offset;
    ++g.bytes;
  }
  if (g.bytes == 0) return std::nullopt;
  return g;
}

std::string describe(const GuardViolation& g) {
  if (g.side == "before")
    return fmt::format("{}: {} guard byte(s) changed before the start (offsets {}..{} from the start)", g.tensor, g.bytes,
                       g.first_offset, g.last_offset);
  return fmt::format("{}: {} guard byte(s) changed after the end (offsets +{}..+{} from the end)", g.tensor, g.bytes,
                     g.first_offset, g.last_offset);
}

}  // namespace hk
