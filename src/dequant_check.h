// The dequantization check of a quantized output: how far out * scale is from the tensor the
// kernel quantized, in relative L2 (docs/manifest.md, "Quantized outputs").
#pragma once

#include <cstdint>
#include <vector>

#include "case_plan.h"
#include "metrics.h"
#include "reference.h"

namespace hk {

// out: the kernel's quantized output in the device's byte layout; scales: one per block of
// plan.block elements of the last dim in every row, or a single one; against: what was
// quantized, in double. Element i of a row uses scales[row * blocks_per_row + col / block].
DequantMetrics check_dequant(const TensorPlan& out, const std::vector<uint8_t>& out_bytes, const DequantPlan& plan,
                             const std::string& scale_name, const std::vector<double>& scales,
                             const std::vector<double>& against);

// The check for output plan.tensors[out]: its scale from the kernel's output bytes (got) when
// the scale is an output, else from the inputs; against from ctx (an input, or a tensor the
// reference added). Throws std::runtime_error when against is missing or of another size.
DequantMetrics dequant_for(const CasePlan& plan, size_t out, const std::vector<std::vector<uint8_t>>& got,
                           const ref::Context& ctx);

}  // namespace hk
