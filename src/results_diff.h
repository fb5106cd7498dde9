// Compares the verdicts of two runs (e.g. two GPUs, or a GPU and the host backend): the
// question a CI job asks of a port is "did any case change its verdict?".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hk {

struct VerdictChange {
  std::string kernel, case_name;
  std::string before, after;  // "PASS", "SKIP (HW_LIMIT)", ...; "absent" when the run lacks it
};

struct ResultsDiff {
  std::vector<VerdictChange> changed;  // run in both, different verdicts
  std::vector<VerdictChange> missing;  // in one run only, or not run (SKIP NO_DEVICE / TIER) in one
  int compared = 0;                    // cases run in both
};

// a and b are test_results.json documents. Throws std::runtime_error on a malformed document.
ResultsDiff diff_results(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace hk
