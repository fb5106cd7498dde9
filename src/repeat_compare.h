// Repeated launches on the same inputs must give the same bytes: a kernel whose output changes
// between launches has a race (a missing barrier, an unordered atomic) and is FLAKY.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hk {

// Elements (of element_size bytes) whose bytes differ between two downloads of one tensor.
int64_t differing_elements(const std::vector<uint8_t>& first, const std::vector<uint8_t>& again, size_t element_size);

}  // namespace hk
