// Checks a run of the known-bad corpus (tests/known_bad/): every case that declares "expect"
// must be XFAIL with that verdict underneath, every case that declares nothing must PASS, and
// the details that prove the verdict was reached for the right reason must be there (the first
// mismatch in head 1, the unwritten tail, the guard bytes, the differing launches...).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/manifest.h"

namespace hk::test {

// Returns one line per problem; empty when the run is what the corpus declares.
std::vector<std::string> check_known_bad_run(const nlohmann::json& results, const std::vector<KernelSpec>& corpus);

}  // namespace hk::test
