// The dequantization check of a quantized output: how far out * scale is from the tensor the
// kernel quantized, in relative L2 (docs/manifest.md, "Quantized outputs").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/case_plan.h"
#include "model/check_rule.h"
#include "reference.h"

namespace hk {

struct DequantPlan {
  int scale = -1;       // index into CasePlan::tensors
  int64_t block = 0;    // elements of the last dim per scale
  std::string against;  // an input tensor or one the reference adds
  double max_rel_l2 = 0;
};

// The figures of one dequantization check.
struct DequantMetrics {
  std::string scale, against;
  int64_t block = 0;
  double rel_l2 = 0;  // ||out * scale - against|| / ||against||
  double max_rel_l2 = 0;
  bool pass = true;
};

// out: the kernel's quantized output in the device's byte layout; scales: one per block of
// plan.block elements of the last dim in every row, or a single one; against: what was
// quantized, in double. Element i of a row uses scales[row * blocks_per_row + col / block].
DequantMetrics check_dequant(const TensorPlan& out, const std::vector<uint8_t>& out_bytes, const DequantPlan& plan,
                             const std::string& scale_name, const std::vector<double>& scales,
                             const std::vector<double>& against);

// The plan of a dequant rule as check_dequant takes it.
DequantPlan dequant_plan(const CheckPlan& p);

}  // namespace hk
