// The rules an output is judged by, as a manifest names them and a case plans them
// (docs/manifest.md, "How an output is judged"): each rule's fields, how a case fills and checks
// them, and the table of rules. How a rule judges the kernel's bytes is check/output_check.h's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/check_spec.h"
#include "model/params.h"

namespace hk {

struct CasePlan;

enum class FieldKind { tensor, expr, number, flag, text };
struct CheckField {
  const char* name;
  FieldKind kind;
  bool required;
};

struct CheckRule {
  const char* name;
  bool compares;  // replaces the elementwise comparison (one per output); else an extra check
  const char* summary;  // for errors and --help: what the rule judges
  std::vector<CheckField> fields;
  // Fills defaults and checks what the field kinds cannot (sizes that must fit); throws
  // PlanError naming path. nullptr: nothing to check.
  void (*validate)(CheckPlan&, const CasePlan&, size_t out, const std::string& path);
};

// Every rule there is, in the order --help lists them.
const std::vector<CheckRule>& check_rules();
const CheckRule* find_check_rule(const std::string& name);
std::string check_rule_names(bool compares);

// Resolves spec for output `out` of plan; throws PlanError naming path and the field.
CheckPlan plan_check(const CheckSpec& spec, const CasePlan& plan, size_t out, const Params& params, const std::string& path);

// The input tensors (role in, by plan index) some output's rule reads from the reference's
// context: a field that names a tensor, by index or by name. The rest need not be in double.
std::vector<bool> inputs_read_by_checks(const CasePlan& plan);

}  // namespace hk
