// Running one mutant: its source written to a scratch folder of its own, the kernel's passing
// cases run against it through a Runner of its own (so that mutants may run side by side), and
// the verdict: KILLED by the first case in case order that did not pass, SURVIVED, EQUIVALENT
// (the manifest says why), or DISCARDED when it did not compile.
#pragma once

#include <string>
#include <vector>

#include "contracts/mutation_report.h"
#include "model/manifest.h"
#include "app/mutate/mutant.h"
#include "run/runner.h"

namespace hk {

// A kernel made ready for its mutants.
struct KernelUnderMutation {
  const KernelSpec* kernel = nullptr;
  std::string source;                    // the text of the file the run compiles
  std::vector<Mutant> mutants;           // the selected ones, in source order
  std::vector<const CaseSpec*> passing;  // the cases that pass unmutated
  double mutant_timeout_s = 30;          // per case of a mutant: an endless loop costs seconds
};

// The cases of k run through a Runner with options o, in case order.
std::vector<CaseResult> run_kernel_cases(const KernelSpec& k, const std::vector<const CaseSpec*>& cases, const RunOptions& o);

// A record of m that has not run (NOT_RUN), naming it.
MutantRecord unrun_record(const Mutant& m);

// Runs mutant m of k against its passing cases with options o (their time limit and the stop at
// the first failure are set here), in scratch/<kernel>/<hash of the id>, removed afterwards.
MutantRecord run_mutant(const KernelUnderMutation& k, const Mutant& m, RunOptions o, const std::string& scratch);

// The source path as the report names it: relative to the current folder when inside it.
std::string shown_path(const std::string& path);

}  // namespace hk
