#include "refs/reference_guard.h"

#include <cstdint>
#include <cstring>
#include <fmt/format.h>

#include "util/first_touch.h"

namespace hk {
namespace {

constexpr uint64_t kPattern = 0x7FF4DEADBEEF0F0Full;  // a signaling NaN no arithmetic produces

bool intact(const double* p) {
  uint64_t bits;
  std::memcpy(&bits, p, sizeof bits);
  return bits == kPattern;
}

}  // namespace

void arm_reference_guard(std::vector<double>& data, size_t n, double fill) {
  data.clear();
  data.reserve(n + kReferenceGuardDoubles);
  first_touch(data.data(), n * sizeof(double));
  data.assign(n, fill);
  // The spare capacity is allocated storage of a trivial type: written through the pointer.
  double* guard = data.data() + n;
  for (size_t i = 0; i < kReferenceGuardDoubles; ++i) std::memcpy(guard + i, &kPattern, sizeof kPattern);
}

std::string reference_guard_breach(const std::vector<double>& data, const double* armed_at, size_t armed_size) {
  if (data.data() != armed_at || data.size() != armed_size) return "";
  const double* guard = data.data() + armed_size;
  size_t first = kReferenceGuardDoubles, count = 0;
  for (size_t i = 0; i < kReferenceGuardDoubles; ++i)
    if (!intact(guard + i)) {
      first = std::min(first, i);
      ++count;
    }
  if (count == 0) return "";
  return fmt::format("{} value(s) written past its end, the first {} past it", count, first);
}

}  // namespace hk
