// A case's parameters: names bound to numbers or strings, as written in the manifest.
#pragma once

#include <map>
#include <string>
#include <variant>

namespace hk {

using ParamValue = std::variant<double, std::string>;
using Params = std::map<std::string, ParamValue>;

// "7", "1e-06", "bf16": how a value reads in names, reports and error messages.
std::string param_to_string(const ParamValue& v);

}  // namespace hk
