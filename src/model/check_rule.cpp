#include "model/check_rule.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "model/case_plan.h"
#include "model/expr.h"

namespace hk {

namespace {

void validate_unordered(CheckPlan&, const CasePlan& plan, size_t out, const std::string& path) {
  const TensorPlan& t = plan.tensors[out];
  if (is_packed(t.dtype)) throw PlanError(path, "'unordered' does not support packed outputs (" + std::string(dtype_name(t.dtype)) + ")");
}

// The index output and the tensor it indexes agree on every dimension but the last.
void validate_indices(CheckPlan& p, const CasePlan& plan, size_t out, const std::string& path) {
  const TensorPlan& idx = plan.tensors[out];
  const TensorPlan& src = plan.tensors[static_cast<size_t>(p.tensor("into"))];
  if (is_float(idx.dtype) || is_packed(idx.dtype))
    throw PlanError(path, fmt::format("'{}' is {}; an index output needs an integer dtype", idx.name, dtype_name(idx.dtype)));
  if (src.role != Role::in) throw PlanError(path + "/into", "'" + src.name + "' is an output; indices are judged against an input");
  if (is_packed(src.dtype)) throw PlanError(path + "/into", fmt::format("'{}' is packed ({})", src.name, dtype_name(src.dtype)));
  const bool rows_match = src.shape.size() == idx.shape.size() && !idx.shape.empty() &&
                          std::equal(idx.shape.begin(), idx.shape.end() - 1, src.shape.begin());
  if (!rows_match)
    throw PlanError(path + "/into", fmt::format("'{}' {} and '{}' {} must agree on every dimension but the last", idx.name,
                                                fmt::join(idx.shape, "x"), src.name, fmt::join(src.shape, "x")));
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

double plan_field(const CheckField& f, const std::string& text, const CasePlan& plan, size_t out, const Params& params,
                  const std::string& path) {
  switch (f.kind) {
    case FieldKind::tensor:
      for (size_t t = 0; t < plan.tensors.size(); ++t)
        if (plan.tensors[t].name == text && t != out) return static_cast<double>(t);
      throw PlanError(path, "'" + text + "' is not another tensor of this kernel");
    case FieldKind::expr: return static_cast<double>(eval_int_at(text, params, path, 1));
    case FieldKind::number: return eval_at(text, params, path);
    case FieldKind::flag: return text == "true" ? 1 : 0;
    case FieldKind::text: break;
  }
  return 0;
}

}  // namespace

// A new rule is a row here, its judging in check/output_check.cpp and check/rules/, and a section
// of docs/manifest.md: the manifest reader, case jobs, results and reports need nothing else.
const std::vector<CheckRule>& check_rules() {
  static const std::vector<CheckRule> table = {
      {"elementwise", true, "every element within tolerance of the reference's (the default)", {}, nullptr},
      {"unordered", true, "the same values in any order along the last dimension (rows sorted before comparing)", {},
       validate_unordered},
      {"indices", true,
       "an index output judged by the values of 'into' it selects: in range, distinct per row, selecting the expected values "
       "(ties pass either way); 'unordered': true for a set of indices in any order",
       {{"into", FieldKind::tensor, true}, {"unordered", FieldKind::flag, false}},
       validate_indices},
      {"dequant", false, "out * scale within a relative L2 of the tensor that was quantized",
       {{"scale", FieldKind::tensor, true}, {"block", FieldKind::expr, false}, {"against", FieldKind::text, true},
        {"max_rel_l2", FieldKind::number, true}},
       validate_dequant},
  };
  return table;
}

const CheckRule* find_check_rule(const std::string& name) {
  for (const CheckRule& r : check_rules())
    if (name == r.name) return &r;
  return nullptr;
}

std::string check_rule_names(bool compares) {
  std::string names;
  for (const CheckRule& r : check_rules())
    if (r.compares == compares) names += (names.empty() ? "" : ", ") + std::string(r.name);
  return names;
}

CheckPlan plan_check(const CheckSpec& spec, const CasePlan& plan, size_t out, const Params& params, const std::string& path) {
  const CheckRule* rule = find_check_rule(spec.rule);
  if (!rule) throw PlanError(path + "/rule", "unknown rule '" + spec.rule + "'");
  CheckPlan p;
  p.rule = spec.rule;
  for (const CheckField& f : rule->fields) {
    const auto it = spec.fields.find(f.name);
    if (it == spec.fields.end()) continue;  // required fields were checked when the manifest was read
    p.text[f.name] = it->second;
    if (f.kind != FieldKind::text) p.numbers[f.name] = plan_field(f, it->second, plan, out, params, path + "/" + f.name);
  }
  if (rule->validate) rule->validate(p, plan, out, path);
  return p;
}

std::vector<bool> inputs_read_by_checks(const CasePlan& plan) {
  std::vector<bool> read(plan.tensors.size(), false);
  auto mark = [&](size_t i) {
    if (i < plan.tensors.size() && plan.tensors[i].role == Role::in) read[i] = true;
  };
  for (const TensorPlan& out : plan.tensors)
    for (const CheckPlan& c : out.checks) {
      const CheckRule* rule = find_check_rule(c.rule);
      for (const CheckField& f : rule ? rule->fields : std::vector<CheckField>{}) {
        if (f.kind == FieldKind::tensor && c.tensor(f.name) >= 0) mark(static_cast<size_t>(c.tensor(f.name)));
      }
      for (const auto& [field, name] : c.text)  // e.g. dequant's `against`: an input or a tensor the reference adds
        for (size_t i = 0; i < plan.tensors.size(); ++i)
          if (plan.tensors[i].name == name) mark(i);
    }
  return read;
}

}  // namespace hk
