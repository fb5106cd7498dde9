#include "model/manifest_read.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace hk {

namespace manifest_read {

void fail(const std::string& path, const std::string& what) { throw FieldError{path, what}; }

const char* kind_of(const nlohmann::json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  return "null";
}

void check_keys(const nlohmann::json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
  check_keys(obj, path, std::vector<std::string>(allowed.begin(), allowed.end()));
}

void check_keys(const nlohmann::json& obj, const std::string& path, const std::vector<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(path + "/" + it.key(), "unknown field (expected one of: " + list + ")");
    }
  }
}

bool is_identifier(const std::string& s) {
  return !s.empty() && s.size() <= kMaxNameLength && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

const nlohmann::json& need(const nlohmann::json& obj, const char* key, const std::string& path) {
  if (!obj.contains(key)) fail(path + "/" + key, "required field is missing");
  return obj.at(key);
}

std::string need_string(const nlohmann::json& obj, const char* key, const std::string& path) {
  const nlohmann::json& v = need(obj, key, path);
  if (!v.is_string() || v.get<std::string>().empty())
    fail(path + "/" + key, fmt::format("expected a non-empty string, got {}", kind_of(v)));
  return v.get<std::string>();
}

// An expression: a JSON number or a string to be evaluated later.
std::string expr_text(const nlohmann::json& v, const std::string& path) {
  if (v.is_number()) return v.dump();
  if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
  fail(path, fmt::format("expected a number or an expression string, got {}", kind_of(v)));
}

}  // namespace manifest_read

}  // namespace hk
