#include "select/selection.h"

#include <algorithm>
#include <fnmatch.h>
#include <set>

#include "util/close_match.h"

namespace hk {

Selection select_kernels(const std::vector<KernelSpec>& all, const std::vector<std::string>& patterns,
                         const std::vector<std::string>& left_out) {
  Selection sel;
  std::set<std::string> chosen;
  for (const KernelSpec& k : all) {
    bool match = patterns.empty();
    for (const auto& p : patterns) match |= fnmatch(p.c_str(), k.name.c_str(), 0) == 0;
    if (match && chosen.insert(k.name).second) sel.kernels.push_back(&k);
  }
  for (const auto& p : patterns) {
    if (std::any_of(all.begin(), all.end(), [&](const KernelSpec& k) { return fnmatch(p.c_str(), k.name.c_str(), 0) == 0; }))
      continue;
    if (std::any_of(left_out.begin(), left_out.end(), [&](const std::string& name) { return fnmatch(p.c_str(), name.c_str(), 0) == 0; }))
      continue;
    std::vector<std::string> names;
    for (const KernelSpec& k : all) names.push_back(k.name);
    const std::string best = closest_match(p, names, 4);
    sel.errors.push_back("no kernel matches '" + p + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)"));
  }
  return sel;
}

}  // namespace hk
