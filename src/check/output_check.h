// The rules an output is judged by (docs/manifest.md, "How an output is judged"): one
// comparison (elementwise unless the manifest's "compare" names another) and any extra checks
// (dequant). Each rule is one row of the table in output_check.cpp and one file in src/checks/;
// manifests, case jobs and results handle every rule the same way, through the types below.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"

namespace hk {

struct CasePlan;
struct CaseResult;
struct OutputMetrics;
struct Tolerance;
namespace ref {
struct Context;
}

// A rule as the manifest declares it on an output: field -> text as written.
struct CheckSpec {
  std::string field;  // the output's key it was written under: "compare" or the rule's name
  std::string rule;
  std::map<std::string, std::string> fields;
};

// The rule made concrete for one case: "tensor" fields become the tensor's index in numbers
// (its name stays in text), expressions are evaluated, flags are 0 or 1.
struct CheckPlan {
  std::string rule;
  std::map<std::string, std::string> text;
  std::map<std::string, double> numbers;

  int tensor(const std::string& field) const;  // -1 when unset
  bool flag(const std::string& field) const { return numbers.count(field) && numbers.at(field) != 0; }
};

enum class FieldKind { tensor, expr, number, flag, text };
struct CheckField {
  const char* name;
  FieldKind kind;
  bool required;
};

// What a rule reads: the plan, which output, every output's bytes as the kernel left them (in
// the device's layout), and the reference's context (inputs and expected outputs in double).
struct CheckInput {
  const CasePlan& plan;
  size_t out;
  const std::vector<std::vector<uint8_t>>& got;
  const ref::Context& ctx;
};

struct CheckRule {
  const char* name;
  bool compares;  // replaces the elementwise comparison (one per output); else an extra check
  const char* summary;  // for errors and --help: what the rule judges
  std::vector<CheckField> fields;
  // Fills defaults and checks what the field kinds cannot (sizes that must fit); throws
  // PlanError naming path.
  void (*validate)(CheckPlan&, const CasePlan&, size_t out, const std::string& path);
  // Fills the output's metrics (a comparison) or appends a CheckOutcome (an extra check).
  // Throws std::runtime_error when the reference did not provide what the rule needs.
  void (*run)(const CheckInput&, const CheckPlan&, OutputMetrics&);
};

const CheckRule* find_check_rule(const std::string& name);
std::string check_rule_names(bool compares);

// Resolves spec for output `out` of plan; throws PlanError naming path and the field.
CheckPlan plan_check(const CheckSpec& spec, const CasePlan& plan, size_t out, const Params& params, const std::string& path);

// The input tensors (role in, by plan index) some output's rule reads from the reference's
// context: a field that names a tensor, by index or by name. The rest need not be in double.
std::vector<bool> inputs_read_by_checks(const CasePlan& plan);

// Judges output `out` by its comparison rule, then by each extra check; pass is output_passes.
OutputMetrics judge_output(const CheckInput& in);

// Whether an output passes by its own figures: its comparison within tol (within_tolerance,
// metrics.h) and every extra check passed.
bool output_passes(const OutputMetrics& m, const Tolerance& tol);
// A judged case PASSes when every output passes and no guard was touched, else it FAILs (unless
// launches that disagree make it FLAKY: case_exec.cpp).
bool case_passes(const CaseResult& r);

// The same rule read back: what in a judged record (PASS, FAIL or FLAKY) contradicts its
// verdict or the case's plan, or "" when nothing does. The parent checks every record a worker
// sends with it: a PASS whose outputs fail, were never written, hold NaN beyond tolerance or
// breached a guard; an output marked passing against its figures; outputs that are not the plan's.
std::string verdict_contradiction(const CaseResult& r, const CasePlan& plan);

}  // namespace hk
