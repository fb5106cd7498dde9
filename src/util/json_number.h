// Doubles in hkcheck's JSON (results, journal, worker protocol): JSON has no NaN or Inf, so they
// travel as the strings "nan", "inf" and "-inf"; every other number as itself.
#pragma once

#include <nlohmann/json.hpp>

namespace hk {

nlohmann::json json_number(double v);
// Throws std::runtime_error for a string other than the three above.
double read_json_number(const nlohmann::json& j);

}  // namespace hk
