#include "check/output_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "model/case_plan.h"
#include "check/rules/rules.h"
#include "check/metrics.h"
#include "contracts/result.h"

namespace hk {

namespace {

using Judge = void (*)(const CheckInput&, const CheckPlan&, OutputMetrics&);

// How each rule of model/check_rule.cpp judges: a new rule is a row there and a row here.
Judge find_judge(const std::string& rule) {
  static const std::map<std::string, Judge> table = {
      {"elementwise", run_elementwise}, {"unordered", run_unordered}, {"indices", run_indices}, {"dequant", run_dequant}};
  const auto it = table.find(rule);
  return it == table.end() ? nullptr : it->second;
}

Judge judge_of(const std::string& rule) {
  if (Judge j = find_judge(rule)) return j;
  throw std::logic_error("no judge for rule '" + rule + "'");  // a plan was made by a rule check/ lacks
}

}  // namespace

bool can_judge_by(const std::string& name) { return find_judge(name) != nullptr; }

OutputMetrics judge_output(const CheckInput& in) {
  const TensorPlan& t = in.plan.tensors[in.out];
  OutputMetrics m;
  const CheckPlan elementwise{"elementwise", {}, {}};
  const CheckPlan* comparison = &elementwise;
  for (const CheckPlan& p : t.checks)
    if (find_check_rule(p.rule)->compares) comparison = &p;
  judge_of(comparison->rule)(in, *comparison, m);
  m.name = t.name;
  for (const CheckPlan& p : t.checks)
    if (!find_check_rule(p.rule)->compares) judge_of(p.rule)(in, p, m);
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
