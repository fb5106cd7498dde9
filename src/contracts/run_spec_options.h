// A RunSpec as hkcheck's own command-line options: the inverse of the parser
// (app/cli/command_line.cpp, app/cli/run_spec_settings.h), so that parsing them gives the RunSpec back
// (tests/run_spec_test.cpp). rerun.sh is written from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contracts/run_spec.h"

namespace hk {

// Every setting and the selection (kernel patterns last). The project's folders (manifests,
// references) are the caller's to name, with --manifests or --root.
std::vector<std::string> spec_options(const RunSpec& s);

// The run's settings for one case run again alone from its repro folder, whose manifest holds
// only that case (so nothing is selected: a kernel name is no glob to trust): its seed, a fresh
// worker, the first device.
RunSpec rerun_spec(const RunSpec& run, uint64_t case_seed);

}  // namespace hk
