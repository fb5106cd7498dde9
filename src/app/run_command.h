// The run mode (the default): runs the selected cases in workers on one or more devices, journals
// each result as it comes, and writes the reports; --resume finishes an interrupted run.
#pragma once

#include "app/cli/selected_cases.h"
#include "app/cli/settings.h"
#include "run/runner.h"

namespace hk {

// Returns the exit code (exit_codes.h).
int run_command(Settings& s);

// The runner's options for the selected cases as s says, their references built (s.devices set).
RunOptions runner_options(const Settings& s, const SelectedCases& sel);

// The list mode: the selected kernels and their cases, without running anything.
int list_command(Settings& s);

// The compile-only mode: compile_only.h, on the selected kernels.
int compile_only_mode(Settings& s);

}  // namespace hk
