// -a NAME=VALUES: a sweep axis set from the command line. Every sweep of every manifest that has
// the parameter NAME takes VALUES instead of its own; explicit cases and sweeps without NAME are
// left as they are (README.md, "Choosing cases").
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace hk {

struct AxisOverride {
  std::string name;
  nlohmann::json values;             // a non-empty array of numbers and strings
  std::vector<std::string> kernels;  // globs of the kernel names it applies to; empty: every kernel
};

// "N=128", "N=[128,256]", "dtype=[f16,bf16]": a value that reads whole as a number is one, any
// other a string. Throws std::invalid_argument naming the option.
AxisOverride parse_axis_override(const std::string& text);
std::vector<AxisOverride> parse_axis_overrides(const std::vector<std::string>& texts);

// Replaces the axes in the "sweep" objects of a manifest document's cases; returns the names of
// the overrides that replaced at least one, and adds the indices of the kernels changed to
// *changed. A document of another shape is left to the loader.
std::set<std::string> apply_axis_overrides(nlohmann::json& manifest, const std::vector<AxisOverride>& overrides,
                                           std::set<size_t>* changed = nullptr);

}  // namespace hk
