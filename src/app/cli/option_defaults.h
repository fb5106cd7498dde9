// Option defaults from outside the command line: HKCHECK_<OPTION> environment variables for the
// common options, and the "defaults" object of hkcheck.json at the project root for any long
// option of the run. Precedence: the command line, then the environment, then the file, then the
// built-in default (README.md, "Configuration").
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hk {

constexpr const char* kConfigFileName = "hkcheck.json";

// The options HKCHECK_<NAME> sets (the name upper-cased, '-' as '_'): backend, jobs, out, seed,
// tier, timeout.
const std::vector<std::string>& environment_options();
// HKCHECK_<NAME> for the option name ("jobs": HKCHECK_JOBS).
std::string environment_variable(const std::string& option);

// The arguments to add to a command line on which the options in `given` were given: the
// environment's first, then config_file's "defaults" (skipped when the file is not there).
// is_option says whether "--name" is an option of the command line. Returns nothing with *err
// (naming the file and the field, or the variable) for a bad file or value.
std::optional<std::vector<std::string>> default_arguments(const std::set<std::string>& given, const std::string& config_file,
                                                          const std::function<bool(const std::string&)>& is_option,
                                                          std::string* err);

}  // namespace hk
