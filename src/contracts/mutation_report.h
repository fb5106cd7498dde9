// The report of `hkcheck mutate` (docs/mutate.md): per kernel, how many of its mutants the cases
// killed, which survived (with their diffs) and how long it took. mutation_report.json holds it;
// one to_json / from_json.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/backend.h"

namespace hk {

// KILLED: some case did not pass. SURVIVED: every case passed. EQUIVALENT: survived, and the
// manifest explains why no output can change. DISCARDED: did not compile. NOT_RUN: --budget
// ran out first.
enum class MutantOutcome { KILLED, SURVIVED, EQUIVALENT, DISCARDED, NOT_RUN };
const char* outcome_name(MutantOutcome o);
MutantOutcome outcome_from_name(const std::string& name);  // throws std::invalid_argument

struct MutantRecord {
  std::string id, op, description;
  unsigned line = 0;
  MutantOutcome outcome = MutantOutcome::NOT_RUN;
  std::string killed_by;  // the first case that did not pass, "case: VERDICT message"
  std::string why;        // EQUIVALENT: the manifest's reason; DISCARDED: the compiler's first line
  std::string diff;       // unified diff of the source (SURVIVED and EQUIVALENT only)
  double seconds = 0;
};

struct KernelMutation {
  std::string kernel, source;  // source: as the manifest names it, relative to the project
  size_t candidates = 0;       // mutants the operators made of the source
  size_t cases = 0;            // cases each mutant runs (those passing unmutated)
  std::string skipped;         // why the kernel got no score (no case passes unmutated, say)
  std::vector<std::string> stale_equivalents;  // manifest ids no mutant of this source has
  std::vector<MutantRecord> mutants;  // the selected ones, in source order
  double seconds = 0;
  size_t count(MutantOutcome o) const;
  // killed / (killed + survived); none when no mutant was killed or survived.
  std::optional<double> score() const;
};

struct MutationReport {
  std::string hkcheck_version, git_commit, started_at;
  std::vector<std::string> command;
  std::optional<DeviceInfo> device;
  std::string host_profile;  // the host backend's profile
  uint64_t seed = 0;
  double budget_s = 0;   // 0: none
  size_t max_mutants = 0;  // per kernel; 0: all
  int parallel = 1;        // mutants run at once (the outcomes do not depend on it)
  bool budget_exhausted = false;
  double wall_s = 0;
  std::vector<KernelMutation> kernels;
};

// The whole report in one line: how many kernels got a score, the score of all their mutants
// together, and the survivors still to kill or explain.
struct MutationSummary {
  size_t kernels = 0, scored = 0;  // scored: with a score (some mutant killed or survived)
  size_t killed = 0, survived = 0, equivalent = 0;
  std::optional<double> score() const;  // killed / (killed + survived) over every kernel
};
MutationSummary summarize(const MutationReport& r);

void to_json(nlohmann::json& j, const MutantRecord& m);
void from_json(const nlohmann::json& j, MutantRecord& m);
void to_json(nlohmann::json& j, const KernelMutation& k);
void from_json(const nlohmann::json& j, KernelMutation& k);
void to_json(nlohmann::json& j, const MutationReport& r);
void from_json(const nlohmann::json& j, MutationReport& r);

// The markdown page of a report: a score table, then every surviving mutant as a diff.
std::string mutation_markdown(const MutationReport& r);

}  // namespace hk
