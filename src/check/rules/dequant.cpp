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

// One scale per block of the last dim in every row, or a single scale for the whole tensor.
void validate_dequant(CheckPlan& p, const CasePlan& plan, size_t out, const std::string& path) {
  const TensorPlan& t = plan.tensors[out];
  const int64_t last = t.shape.empty() ? 1 : t.shape.back();
  if (!p.numbers.count("block")) p.numbers["block"] = static_cast<double>(std::max<int64_t>(last, 1));  // one scale per row
  const std::string& against = p.text.at("against");
  if (against == t.name) throw PlanError(path + "/against", "an output cannot be checked against itself");
  for (const TensorPlan& o : plan.tensors)
    if (o.name == against && o.role != Role::in)
      throw PlanError(path + "/against", "'" + against + "' is an output; name an input or a tensor the reference adds");
  if (p.numbers.at("max_rel_l2") <= 0) throw PlanError(path + "/max_rel_l2", "expected a number > 0");
  const int64_t block = static_cast<int64_t>(p.numbers.at("block"));
  const int64_t rows = last > 0 ? t.numel / last : 0;
  const int64_t expected = rows * ((last + block - 1) / block);
  const TensorPlan& s = plan.tensors[static_cast<size_t>(p.tensor("scale"))];
  if (s.numel != 1 && s.numel != expected)
    throw PlanError(path + "/scale", fmt::format("'{}' has {} elements; {} rows of {} in blocks of {} need {} (or 1 for a per-tensor scale)",
                                                 s.name, s.numel, rows, last, block, expected));
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
