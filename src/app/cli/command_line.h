// The shared command line of run, list and compile-only (and the internal worker modes): one
// parser fills Settings, with every option's help text and check in one place.
#pragma once

#include <optional>

#include "app/cli/settings.h"

namespace hk {

// Fills s from argv (argv[0] is the program; a mode word such as "list" may follow it). Returns
// an exit code when the process should stop now: --help (0), --version (0), a usage error (2).
std::optional<int> parse_command_line(int argc, char** argv, Settings& s);

// Why the command line would refuse these options (the first line of its message), or nothing
// when it takes them: a run record read back (--resume) is held to what the command line allows.
std::optional<std::string> refused_by_command_line(const std::vector<std::string>& options);

}  // namespace hk
