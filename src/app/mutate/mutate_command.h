// hkcheck mutate [kernels]: makes mutants of each selected kernel's source (mutation_operators.h),
// runs the kernel's cases on each through the usual workers, and reports per kernel how many the
// cases killed, which survived (as diffs) and how long it took (docs/mutate.md).
#pragma once

#include "app/cli/settings.h"

namespace hk {

// Exit code: 0 no mutant survived, 1 some survived (equivalent ones declared in the manifest do
// not count), 2 usage or manifest error, or a kernel's source could not be read.
int mutate_command(Settings& s);

// Where the report goes without --out: results/mutation for every kernel of the project, and
// results/mutation/runs/<the patterns> for some, so that such a run never replaces the project's.
std::string default_mutation_folder(const std::vector<std::string>& patterns);

}  // namespace hk
