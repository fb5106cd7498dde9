// Which cases of the selected kernels run: -k, --exclude, kernel/case patterns and
// --last-failed, all over case ids "kernel/case" (docs: README.md, "Choosing cases").
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/manifest.h"
#include "select/case_id.h"

namespace hk {

struct CaseFilter {
  // A case runs when it matches one of the kernel/case patterns (none: every case), one of the
  // -k expressions (keyword_expr.h; none: every case)...
  std::vector<std::string> include;
  std::vector<std::string> keyword;
  // ...matches none of these...
  std::vector<std::string> exclude;
  // ...and, with --last-failed, is one of these ids.
  std::optional<std::set<std::string>> only;

  bool active() const { return !include.empty() || !keyword.empty() || !exclude.empty() || only.has_value(); }
};

// The ids of the cases that did not pass (neither PASS, SKIP nor XFAIL) in a results file or a
// folder holding test_results.json. Throws std::runtime_error naming the file.
std::set<std::string> ids_not_passed(const std::string& results);

// Drops the cases of k the filter does not take; returns how many are left. Throws
// std::invalid_argument for a -k expression that does not parse.
size_t filter_cases(KernelSpec& k, const CaseFilter& f);

}  // namespace hk
