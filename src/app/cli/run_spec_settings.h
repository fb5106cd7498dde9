// The command line's Settings as a RunSpec (contracts/run_spec.h) and back: a run records the
// first, --resume applies the second.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/settings.h"
#include "contracts/run_spec.h"

namespace hk {

// The settings as given, paths made absolute. seeds: --seeds parsed; references: the project's
// references folder. backend, tier and source_vendor are as given ("auto", ""): the run sets
// what it resolved them to once it has found its device.
RunSpec spec_from_settings(const Settings& s, const std::vector<uint64_t>& seeds, const std::string& references);

// Sets every setting the spec holds (the project's folder through --manifests). A backend of
// "none" (the run found no device) leaves s.backend as it is.
void apply_spec(const RunSpec& spec, Settings& s);

}  // namespace hk
