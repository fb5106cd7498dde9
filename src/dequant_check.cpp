#include "dequant_check.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hk {

DequantMetrics check_dequant(const TensorPlan& out, const std::vector<uint8_t>& out_bytes, const DequantPlan& plan,
                             const std::string& scale_name, const std::vector<double>& scales,
                             const std::vector<double>& against) {
  if (static_cast<int64_t>(against.size()) != out.numel)
    throw std::runtime_error("dequant check of '" + out.name + "': '" + plan.against + "' has " +
                             std::to_string(against.size()) + " elements, the output " + std::to_string(out.numel));
  DequantMetrics m;
  m.scale = scale_name;
  m.against = plan.against;
  m.block = plan.block;
  m.max_rel_l2 = plan.max_rel_l2;
  const int64_t last = out.shape.empty() ? 1 : std::max<int64_t>(out.shape.back(), 1);
  const int64_t blocks_per_row = (last + plan.block - 1) / plan.block;
  double diff_sq = 0, ref_sq = 0;
  for (int64_t i = 0; i < out.numel; ++i) {
    const int64_t row = i / last, col = i % last;
    const double s = scales.size() == 1 ? scales[0] : scales[static_cast<size_t>(row * blocks_per_row + col / plan.block)];
    const double d = decode_element(out.dtype, out_bytes.data(), i) * s - against[static_cast<size_t>(i)];
    diff_sq += d * d;  // NaN (an unwritten or bad scale) makes rel_l2 NaN, which fails below
    ref_sq += against[static_cast<size_t>(i)] * against[static_cast<size_t>(i)];
  }
  m.rel_l2 = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  m.pass = m.rel_l2 <= m.max_rel_l2;  // false for NaN
  return m;
}

DequantMetrics dequant_for(const CasePlan& plan, size_t out, const std::vector<std::vector<uint8_t>>& got,
                           const ref::Context& ctx) {
  const TensorPlan& t = plan.tensors[out];
  const DequantPlan& d = *t.dequant;
  const size_t si = static_cast<size_t>(d.scale);
  const TensorPlan& st = plan.tensors[si];
  std::vector<double> scales(static_cast<size_t>(st.numel));
  if (st.role == Role::in) {
    scales = ctx.tensors.at(st.name).data;
  } else {
    for (int64_t i = 0; i < st.numel; ++i) scales[static_cast<size_t>(i)] = decode_element(st.dtype, got[si].data(), i);
  }
  const auto it = ctx.tensors.find(d.against);
  if (it == ctx.tensors.end())
    throw std::runtime_error("dequant check of '" + t.name + "': no tensor '" + d.against +
                             "' (neither an input nor added by the reference)");
  return check_dequant(t, got[out], d, st.name, scales, it->second.data);
}

}  // namespace hk
