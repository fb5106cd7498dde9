#include "app/cli/option_defaults.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

namespace hk {
std::string environment_variable(const std::string& option) {
  std::string v = "HKCHECK_";
  for (char c : option) v += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return v;
}

namespace {

using nlohmann::json;

// One option's value from the file as arguments: a flag's true as the flag alone, an array as
// the option repeated, a number or a string as its text.
bool append_default_value(const std::string& option, const json& v, std::vector<std::string>& out) {
  if (v.is_boolean()) {
    if (v.get<bool>()) out.push_back(option);
    return true;
  }
  if (v.is_number()) return out.insert(out.end(), {option, v.dump()}), true;
  if (v.is_string()) return out.insert(out.end(), {option, v.get<std::string>()}), true;
  if (!v.is_array() || v.empty()) return false;
  for (const json& e : v) {
    if (!e.is_string() && !e.is_number()) return false;
    out.insert(out.end(), {option, e.is_string() ? e.get<std::string>() : e.dump()});
  }
  return true;
}

// Options that exclude each other: a default for one is dropped when the other is set.
bool excluded_by(const std::string& option, const std::set<std::string>& set) {
  static const std::vector<std::pair<std::string, std::string>> pairs = {{"--seed", "--seeds"}, {"--device", "--devices"}};
  for (const auto& [a, b] : pairs)
    if ((option == a && set.count(b)) || (option == b && set.count(a))) return true;
  return false;
}

// Options only the command line (or the user's own environment) may set: where hkcheck writes,
// the cache whose code it runs, and the compiler it loads. A project's hkcheck.json comes with
// the project (a pull request can change it): it must not send a CI machine's results, cache or
// compiler elsewhere.
constexpr const char* kCommandLineOnly[] = {"out", "junit", "cache-dir", "hiprtc-root", "save-mutants"};

bool command_line_only(const std::string& key) {
  return std::find(std::begin(kCommandLineOnly), std::end(kCommandLineOnly), key) != std::end(kCommandLineOnly);
}

}  // namespace

const std::vector<std::string>& environment_options() {
  static const std::vector<std::string> names = {"backend", "jobs", "out", "seed", "tier", "timeout"};
  return names;
}

std::optional<std::vector<std::string>> default_arguments(const std::set<std::string>& given, const std::string& config_file,
                                                          const std::function<bool(const std::string&)>& is_option,
                                                          std::string* err) {
  std::vector<std::string> out;
  std::set<std::string> set_here = given;
  for (const std::string& name : environment_options()) {
    const char* value = std::getenv(environment_variable(name).c_str());
    if (!value || set_here.count("--" + name) || excluded_by("--" + name, set_here)) continue;
    if (*value == '\0') {
      *err = environment_variable(name) + " is set but empty";
      return std::nullopt;
    }
    out.insert(out.end(), {"--" + name, value});
    set_here.insert("--" + name);
  }
  std::error_code ec;
  if (config_file.empty() || !std::filesystem::is_regular_file(config_file, ec)) return out;
  json doc;
  try {
    std::ifstream in(config_file);
    doc = json::parse(in);
  } catch (const json::exception& e) {
    *err = fmt::format("{}: not valid JSON: {}", config_file, e.what());
    return std::nullopt;
  }
  if (!doc.is_object() || !doc.contains("defaults") || !doc["defaults"].is_object()) {
    *err = config_file + ": /defaults: expected an object of option values, e.g. {\"defaults\": {\"jobs\": 4}}";
    return std::nullopt;
  }
  for (const auto& [key, value] : doc["defaults"].items()) {
    const std::string option = "--" + key;
    if (!is_option(option)) {
      *err = fmt::format("{}: /defaults/{}: not an option of hkcheck (the keys are long option names without the dashes)", config_file, key);
      return std::nullopt;
    }
    if (command_line_only(key)) {  // said and left out: the run goes on with the command line's value
      fmt::print(stderr, "hkcheck: warning: {}: /defaults/{} is ignored: only the command line chooses where hkcheck writes, which "
                 "cache it trusts and which compiler it loads (give --{} there)\n", config_file, key, key);
      continue;
    }
    if (set_here.count(option) || excluded_by(option, set_here)) continue;
    if (!append_default_value(option, value, out)) {
      *err = fmt::format("{}: /defaults/{}: expected a string, a number, a boolean or an array of strings and numbers", config_file, key);
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace hk
