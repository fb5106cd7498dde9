// --diff A B: the verdicts of two runs (result files or folders) side by side.
#pragma once

#include <string>

namespace hk {

// Prints what changed; returns the exit code (exit_codes.h).
int diff_command(const std::string& a, const std::string& b);

}  // namespace hk
