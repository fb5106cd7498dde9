#include "model/axis_override.h"

#include <cstdlib>
#include <fnmatch.h>
#include <fmt/format.h>
#include <stdexcept>

namespace hk {
namespace {

std::string axis_trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

nlohmann::json axis_value(const std::string& text) {
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size()) return d;
  return text;
}

bool axis_applies_to(const AxisOverride& o, const std::string& kernel) {
  if (o.kernels.empty()) return true;
  for (const std::string& p : o.kernels)
    if (fnmatch(p.c_str(), kernel.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

AxisOverride parse_axis_override(const std::string& text) {
  const size_t eq = text.find('=');
  const auto bad = [&](const std::string& why) { return std::invalid_argument(fmt::format("-a '{}': {}", text, why)); };
  if (eq == std::string::npos || eq == 0) throw bad("expected NAME=VALUE or NAME=[V1,V2,...]");
  AxisOverride o{axis_trimmed(text.substr(0, eq)), nlohmann::json::array()};
  std::string list = axis_trimmed(text.substr(eq + 1));
  if (!list.empty() && list.front() == '[') {
    if (list.back() != ']') throw bad("a '[' without its ']'");
    list = list.substr(1, list.size() - 2);
  }
  size_t from = 0;
  for (;;) {
    const size_t comma = list.find(',', from);
    const std::string v = axis_trimmed(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (v.empty()) throw bad("an empty value");
    o.values.push_back(axis_value(v));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return o;
}

std::vector<AxisOverride> parse_axis_overrides(const std::vector<std::string>& texts) {
  std::vector<AxisOverride> out;
  for (const std::string& t : texts) out.push_back(parse_axis_override(t));
  return out;
}

std::set<std::string> apply_axis_overrides(nlohmann::json& manifest, const std::vector<AxisOverride>& overrides, std::set<size_t>* changed) {
  std::set<std::string> used;
  if (overrides.empty() || !manifest.is_object() || !manifest.contains("kernels") || !manifest["kernels"].is_array()) return used;
  for (size_t i = 0; i < manifest["kernels"].size(); ++i) {
    nlohmann::json& k = manifest["kernels"][i];
    if (!k.is_object() || !k.contains("cases") || !k["cases"].is_array()) continue;
    const std::string name = k.contains("name") && k["name"].is_string() ? k["name"].get<std::string>() : "";
    for (nlohmann::json& c : k["cases"]) {
      if (!c.is_object() || !c.contains("sweep") || !c["sweep"].is_object()) continue;
      for (const AxisOverride& o : overrides) {
        if (!c["sweep"].contains(o.name) || !axis_applies_to(o, name)) continue;
        c["sweep"][o.name] = o.values, used.insert(o.name);
        if (changed) changed->insert(i);
      }
    }
  }
  return used;
}

}  // namespace hk
