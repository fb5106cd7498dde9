#include "check/output_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/case_plan.h"
#include "check/rules/rules.h"
#include "check/metrics.h"
#include "contracts/result.h"

namespace hk {

namespace {

// Every rule there is. A new rule is a row here, a file in src/checks/ and a section of
// docs/manifest.md: the manifest reader, case jobs, results and reports need nothing else.
const std::vector<CheckRule>& rules() {
  static const std::vector<CheckRule> table = {
      {"elementwise", true, "every element within tolerance of the reference's (the default)", {}, nullptr, run_elementwise},
      {"unordered", true, "the same values in any order along the last dimension (rows sorted before comparing)", {},
       validate_unordered, run_unordered},
      {"indices", true,
       "an index output judged by the values of 'into' it selects: in range, distinct per row, selecting the expected values "
       "(ties pass either way); 'unordered': true for a set of indices in any order",
       {{"into", FieldKind::tensor, true}, {"unordered", FieldKind::flag, false}},
       validate_indices, run_indices},
      {"dequant", false, "out * scale within a relative L2 of the tensor that was quantized",
       {{"scale", FieldKind::tensor, true}, {"block", FieldKind::expr, false}, {"against", FieldKind::text, true},
        {"max_rel_l2", FieldKind::number, true}},
       validate_dequant, run_dequant},
  };
  return table;
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

int CheckPlan::tensor(const std::string& field) const {
  const auto it = numbers.find(field);
  return it == numbers.end() ? -1 : static_cast<int>(it->second);
}

const CheckRule* find_check_rule(const std::string& name) {
  for (const CheckRule& r : rules())
    if (name == r.name) return &r;
  return nullptr;
}

std::string check_rule_names(bool compares) {
  std::string names;
  for (const CheckRule& r : rules())
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

OutputMetrics judge_output(const CheckInput& in) {
  const TensorPlan& t = in.plan.tensors[in.out];
  OutputMetrics m;
  const CheckPlan elementwise{"elementwise", {}, {}};
  const CheckPlan* comparison = &elementwise;
  for (const CheckPlan& p : t.checks)
    if (find_check_rule(p.rule)->compares) comparison = &p;
  find_check_rule(comparison->rule)->run(in, *comparison, m);
  m.name = t.name;
  for (const CheckPlan& p : t.checks)
    if (!find_check_rule(p.rule)->compares) find_check_rule(p.rule)->run(in, p, m);
  m.pass = output_passes(m, t.tolerance);
  return m;
}

bool output_passes(const OutputMetrics& m, const Tolerance& tol) {
  bool pass = within_tolerance(m, tol);
  for (const CheckOutcome& o : m.checks) pass &= o.pass;
  return pass;
}

bool case_passes(const CaseResult& r) {
  return r.guards.empty() && std::all_of(r.outputs.begin(), r.outputs.end(), [](const OutputMetrics& m) { return m.pass; });
}

namespace {

// What contradicts one recorded output, judged against tensor t of the plan.
std::string output_contradiction(const OutputMetrics& m, const TensorPlan& t) {
  if (m.name != t.name || m.numel != t.numel)
    return fmt::format("output '{}' of {} elements is recorded where the case has '{}' of {}", m.name, m.numel, t.name, t.numel);
  if (m.pass != output_passes(m, t.tolerance))
    return fmt::format("output '{}' is marked {} against its own figures ({} of {} elements outside tolerance, {} never written, {} NaN/Inf)",
                       m.name, m.pass ? "passing" : "failing", m.mismatches, m.numel, m.unwritten, m.nonfinite);
  for (const CheckPlan& p : t.checks)
    if (!find_check_rule(p.rule)->compares &&
        std::none_of(m.checks.begin(), m.checks.end(), [&](const CheckOutcome& o) { return o.rule == p.rule; }))
      return fmt::format("output '{}' lacks its '{}' check", m.name, p.rule);
  return "";
}

// Why a record does not pass (case_passes is false): its first touched guard or failing output.
std::string what_fails(const CaseResult& r) {
  if (!r.guards.empty())
    return fmt::format("the kernel wrote outside tensor '{}' ({} guard bytes {} it)", r.guards[0].tensor, r.guards[0].bytes, r.guards[0].side);
  for (const OutputMetrics& m : r.outputs)
    if (!m.pass)
      return fmt::format("output '{}' fails: {} of {} elements outside tolerance, {} never written, {} NaN/Inf", m.name, m.mismatches,
                         m.numel, m.unwritten, m.nonfinite);
  return "";
}

}  // namespace

std::string verdict_contradiction(const CaseResult& r, const CasePlan& plan) {
  if (r.status != Status::PASS && r.status != Status::FAIL && r.status != Status::FLAKY) return "";
  std::vector<const TensorPlan*> outputs;
  for (const TensorPlan& t : plan.tensors)
    if (t.role != Role::in) outputs.push_back(&t);
  if (r.outputs.size() != outputs.size()) return fmt::format("{} output(s) recorded; the case has {}", r.outputs.size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    if (std::string why = output_contradiction(r.outputs[i], *outputs[i]); !why.empty()) return why;
  if (r.status == Status::FLAKY && r.repeat_diffs.empty()) return "FLAKY, but no launch differed from the first";
  if (r.status != Status::PASS) return "";
  if (!case_passes(r)) return "PASS, but " + what_fails(r);
  if (r.launches < 1) return "PASS, but no launch is recorded";
  for (const RepeatDiff& d : r.repeat_diffs)
    for (const TensorPlan* t : outputs)
      if (t->name == d.tensor && t->deterministic)
        return fmt::format("PASS, but '{}' is declared deterministic and launch {} differs from the first", d.tensor, d.launch);
  return "";
}

}  // namespace hk
