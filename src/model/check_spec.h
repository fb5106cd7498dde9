// A rule an output is judged by, as the manifest writes it (CheckSpec) and as one case plans it
// (CheckPlan); the rules themselves are model/check_rule.h's.
#pragma once

#include <map>
#include <string>

namespace hk {

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

  int tensor(const std::string& field) const {  // -1 when unset
    const auto it = numbers.find(field);
    return it == numbers.end() ? -1 : static_cast<int>(it->second);
  }
  bool flag(const std::string& field) const { return numbers.count(field) && numbers.at(field) != 0; }
};

}  // namespace hk
