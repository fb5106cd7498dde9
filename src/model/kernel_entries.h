// A kernel's entry per case: "entry" may take $param / ${param} as "defines" do, so that a sweep
// of a template argument names one instantiation per case ("row_sum<$block>"). The file's
// compile then names every case's instantiation (file_entries).
#pragma once

#include <string>
#include <vector>

#include "model/manifest.h"

namespace hk {

// c's entry: k.entry with c's parameters put in. Throws PlanError naming k's /entry.
std::string entry_of(const KernelSpec& k, const CaseSpec& c);

// Every case's entry, each once, in the order cases first name them; {k.entry} when it has no $.
std::vector<std::string> entries_of(const KernelSpec& k);

}  // namespace hk
