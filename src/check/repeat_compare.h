// Repeated launches on the same inputs. Outputs that change between launches come from a race
// (a missing barrier) or from an order that is free to vary (float atomics). The verdict
// depends on whether every launch is still within tolerance: FLAKY when some are and others are
// not, or when the output is declared deterministic; otherwise PASS, with a note.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/dtype.h"

namespace hk {

// Elements (of element_size bytes) whose bytes differ between two downloads of one tensor.
int64_t differing_elements(const std::vector<uint8_t>& first, const std::vector<uint8_t>& again, size_t element_size);

// The largest |a - b| between two downloads of one tensor over the elements finite in both.
double largest_difference(DType t, const std::vector<uint8_t>& first, const std::vector<uint8_t>& again);

// Launches whose output differs from the first launch's, kept to be judged on their own.
struct LaunchVariant {
  int launch = 0;
  std::vector<uint8_t> bytes;
};
inline constexpr size_t kMaxLaunchVariants = 3;  // per tensor: enough to see a second verdict

}  // namespace hk
