#include "model/case_plan.h"

#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "model/expr.h"

namespace hk {

Tolerance default_tolerance(DType t) {
  switch (t) {
    case DType::f32: return {1e-5, 1e-5, 0};
    case DType::f64: return {1e-12, 1e-12, 0};
    case DType::f16: return {1e-4, 0, 1};
    case DType::bf16: return {1e-3, 0, 1};
    case DType::fp8e4m3:
    case DType::fp8e5m2: return {0, 0, 1};
    default: return {0, 0, 0};  // integers: exact
  }
}

std::string substitute_params(const std::string& text, const Params& params, const std::string& path) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    std::string name;
    size_t j = i + 1;
    if (j < text.size() && text[j] == '{') {
      const size_t close = text.find('}', j);
      if (close == std::string::npos) throw PlanError(path, "unterminated ${...} in \"" + text + "\"");
      name = text.substr(j + 1, close - j - 1);
      j = close + 1;
    } else {
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) name += text[j++];
    }
    const auto it = params.find(name);
    if (name.empty() || it == params.end())
      throw PlanError(path, "\"" + text + "\" refers to parameter '" + name + "', which this case does not set");
    out += param_to_string(it->second);
    i = j;
  }
  return out;
}

double eval_at(const std::string& text, const Params& p, const std::string& path) {
  try {
    return eval_expr(text, p);
  } catch (const ExprError& e) {
    throw PlanError(path, e.what());
  }
}

int64_t eval_int_at(const std::string& text, const Params& p, const std::string& path, int64_t min) {
  long long v;
  try {
    v = eval_int_expr(text, p);
  } catch (const ExprError& e) {
    throw PlanError(path, e.what());
  }
  if (v < min) throw PlanError(path, fmt::format("\"{}\" is {}, expected at least {}", text, v, min));
  return v;
}

std::vector<std::string> define_options(const CasePlan& plan) {
  std::vector<std::string> options;
  for (const auto& [name, value] : plan.defines) options.push_back("-D" + name + "=" + value);
  return options;
}

}  // namespace hk
