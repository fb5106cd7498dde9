#include "repeat_compare.h"

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

}  // namespace hk
