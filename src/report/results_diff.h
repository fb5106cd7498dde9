// Compares the verdicts of two runs (e.g. two GPUs, or a GPU and the host backend): the
// question a CI job asks of a port is "did any case change its verdict?".
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "contracts/results_document.h"

namespace hk {

// What a change of verdict means, in the order a reviewer reads them.
enum class ChangeKind {
  regression,  // passed (PASS or XFAIL) in the first run, not in the second
  fix,         // the other way
  device,      // a hardware limit (SKIP HW_LIMIT / TOO_LARGE) on one side only: a fact of the devices
  other,       // from one failure to another (FAIL to CRASH, ...)
};
const char* change_kind_name(ChangeKind k);

struct VerdictChange {
  std::string kernel, case_name;
  std::string before, after;  // "PASS", "SKIP (HW_LIMIT)", ...; "absent" when the run lacks it
  ChangeKind kind = ChangeKind::other;
};

// A number that moved beyond its threshold in a case whose verdict did not change.
struct MetricChange {
  std::string kernel, case_name, what;  // what: "out max ulps", "out rel L2", "kernel ms"
  double before = 0, after = 0;
};

struct ResultsDiff {
  std::vector<VerdictChange> changed;  // run in both, different verdicts, regressions first
  std::vector<VerdictChange> missing;  // in one run only, or not run (SKIP NO_DEVICE / TIER / NOT_FOR_VENDOR, NOT_RUN) in one
  std::vector<MetricChange> metrics;
  // What the second run lost against the first, one line each: it was interrupted, it has
  // manifest errors the first has not (a kernel left out), cases NOT_RUN, and, when it selected
  // every case, cases of the first it does not have. `--fail-on change` counts them as changes.
  std::vector<std::string> lost;
  int compared = 0;                    // cases run in both
  size_t count(ChangeKind k) const;
};

// `diff --fail-on`'s policies. Both count what B lost (ResultsDiff::lost: a kernel gone to a
// manifest error, cases NOT_RUN, an interrupt, cases of A missing from a run of every case): a
// check that B did not run is not a check that passed.
//   regression: a case that passed in A and not in B, or anything B lost
//   change:     any verdict change (regressions, fixes, device differences...), or anything B lost
//   never:      nothing
// Throws std::invalid_argument for another policy name.
bool fails_on(const ResultsDiff& d, const std::string& policy);

// Throws std::runtime_error when a run holds a case more than once (naming the run, "A" or "B",
// and the case): which record to compare would be a guess.
ResultsDiff diff_results(const ResultsDocument& a, const ResultsDocument& b);

// The diff for a pull-request comment, under kDiffMarkdownBudget characters: both runs named,
// then what B lost, regressions, fixes, device differences, other changes, metric changes and the
// cases run on one side only, per kernel; a list too long for a comment ends with how many were
// left out (diff_json has them all).
constexpr size_t kDiffMarkdownBudget = 60000;
std::string diff_markdown(const ResultsDocument& a, const ResultsDocument& b, const ResultsDiff& d);
nlohmann::json diff_json(const ResultsDocument& a, const ResultsDocument& b, const ResultsDiff& d);

}  // namespace hk
