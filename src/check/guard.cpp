#include "check/guard.h"

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

namespace guard_nan {

// Makes the little-endian slot at p a quiet NaN of t, keeping the pattern's other bits as payload.
void make_nan(DType t, uint8_t* p) {
  switch (t) {
    case DType::f32: p[3] = (p[3] & 0x80) | 0x7F, p[2] |= 0xC0; break;
    case DType::f64: p[7] = (p[7] & 0x80) | 0x7F, p[6] |= 0xF8; break;
    case DType::f16: p[1] = (p[1] & 0x81) | 0x7E; break;
    case DType::bf16: p[1] = (p[1] & 0x80) | 0x7F, p[0] |= 0xC0; break;
    case DType::fp8e4m3: p[0] = (p[0] & 0x80) | 0x7F; break;  // S.1111.111, the only NaN
    case DType::fp8e5m2: p[0] = (p[0] & 0x81) | 0x7E; break;  // S.11111.1x
    case DType::e8m0: p[0] = 0xFF; break;
    default: break;
  }
}

}  // namespace guard_nan

std::vector<uint8_t> guard_pattern(size_t tensor, const std::string& side, size_t bytes, DType t) {
  std::vector<uint8_t> p = guard_pattern(tensor, side, bytes);
  if (!is_float(t) || is_packed(t)) return p;
  const size_t e = dtype_size(t), slots = bytes / e;
  const size_t first = side == "before" ? bytes - slots * e : 0;  // slots end at the tensor's first byte
  for (size_t k = 0; k < slots; ++k) guard_nan::make_nan(t, p.data() + first + k * e);
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
                           size_t offset, std::optional<DType> nan_of) {
  BufferGuards g;
  g.before_at = allocation - slack_before;
  const size_t before = slack_before + data_offset(offset), after = kGuardBytes + slack_after;
  g.before = nan_of ? guard_pattern(tensor, "before", before, *nan_of) : guard_pattern(tensor, "before", before);
  g.after_at = allocation + data_offset(offset) + tensor_bytes;
  g.after = nan_of ? guard_pattern(tensor, "after", after, *nan_of) : guard_pattern(tensor, "after", after);
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
