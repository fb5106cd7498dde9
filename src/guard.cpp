#include "guard.h"

#include <cstring>
#include <fmt/format.h>

namespace hk {

std::vector<uint8_t> guard_pattern(size_t tensor, const std::string& side, size_t bytes) {
  // An odd step per tensor keeps 256 consecutive tensors apart at every offset.
  std::vector<uint8_t> p(bytes);
  const size_t side_step = side == "after" ? 0x80 : 0;
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(kGuardByte ^ ((tensor * 0x35 + side_step + i * 0x0F) & 0xFF));
  return p;
}

std::optional<GuardViolation> check_guard(const std::string& tensor, const std::string& side, const std::vector<uint8_t>& region,
                                          const std::vector<uint8_t>& pattern) {
  if (region.size() == pattern.size() && std::memcmp(region.data(), pattern.data(), region.size()) == 0) return std::nullopt;
  GuardViolation g{tensor, side, 0, 0, 0};
  const int64_t base = side == "before" ? -static_cast<int64_t>(region.size()) : 0;
  for (size_t i = 0; i < region.size(); ++i) {
    if (i < pattern.size() && region[i] == pattern[i]) continue;
    const int64_t offset = base + static_cast<int64_t>(i);
    if (g.bytes == 0) g.first_offset = offset;
    g.last_offset = offset;
    ++g.bytes;
  }
  if (g.bytes == 0) return std::nullopt;
  return g;
}

BufferGuards buffer_guards(size_t tensor, uint64_t allocation, size_t tensor_bytes, size_t slack_before, size_t slack_after,
                           size_t offset) {
  BufferGuards g;
  g.before_at = allocation - slack_before;
  g.before = guard_pattern(tensor, "before", slack_before + data_offset(offset));
  g.after_at = allocation + data_offset(offset) + tensor_bytes;
  g.after = guard_pattern(tensor, "after", kGuardBytes + slack_after);
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
