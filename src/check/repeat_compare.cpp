#include "check/repeat_compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace hk {

int64_t differing_elements(const std::vector<uint8_t>& first, const std::vector<uint8_t>& again, size_t element_size) {
  if (first.size() != again.size() || element_size == 0 || first.size() % element_size != 0)
    throw std::logic_error("differing_elements: buffers of different sizes");
  int64_t n = 0;
  for (size_t off = 0; off < first.size(); off += element_size)
    n += std::memcmp(first.data() + off, again.data() + off, element_size) != 0;
  return n;
}

double largest_difference(DType t, const std::vector<uint8_t>& first, const std::vector<uint8_t>& again) {
  const std::vector<double> a = unpack(t, first), b = unpack(t, again);
  double most = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) most = std::max(most, std::fabs(a[i] - b[i]));
  return most;
}

}  // namespace hk
