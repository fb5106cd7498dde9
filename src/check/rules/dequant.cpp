#include "check/rules/dequant.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "check/rules/rules.h"
#include "check/metrics.h"

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

DequantPlan dequant_plan(const CheckPlan& p) {
  return DequantPlan{p.tensor("scale"), static_cast<int64_t>(p.numbers.at("block")), p.text.at("against"), p.numbers.at("max_rel_l2")};
}

// The scale comes from the kernel's output bytes when the scale is an output, else from the
// inputs; against from the context (an input, or a tensor the reference added).
void run_dequant(const CheckInput& in, const CheckPlan& p, OutputMetrics& m) {
  const TensorPlan& t = in.plan.tensors[in.out];
  const DequantPlan d = dequant_plan(p);
  const size_t si = static_cast<size_t>(d.scale);
  const TensorPlan& st = in.plan.tensors[si];
  std::vector<double> scales(static_cast<size_t>(st.numel));
  if (st.role == Role::in) {
    scales = in.ctx.tensors.at(st.name).data;
  } else {
    for (int64_t i = 0; i < st.numel; ++i) scales[static_cast<size_t>(i)] = decode_element(st.dtype, in.got[si].data(), i);
  }
  const auto it = in.ctx.tensors.find(d.against);
  if (it == in.ctx.tensors.end())
    throw std::runtime_error("dequant check of '" + t.name + "': no tensor '" + d.against +
                             "' (neither an input nor added by the reference)");
  const DequantMetrics dm = check_dequant(t, in.got[in.out], d, st.name, scales, it->second.data);
  CheckOutcome o;
  o.rule = "dequant";
  o.pass = dm.pass;
  o.summary = fmt::format("||{} * {} - {}|| / ||{}|| = {:.4g} ({} max {:g}, blocks of {})", t.name, st.name, d.against, d.against,
                          dm.rel_l2, dm.pass ? "within" : "over", dm.max_rel_l2, dm.block);
  o.figures = {{"rel_l2", dm.rel_l2}, {"max_rel_l2", dm.max_rel_l2}, {"block", static_cast<double>(dm.block)}};
  m.checks.push_back(std::move(o));
}

}  // namespace hk
