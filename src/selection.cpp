#include "selection.h"

#include <algorithm>
#include <fnmatch.h>
#include <set>

namespace hk {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

Selection select_kernels(const std::vector<KernelSpec>& all, const std::vector<std::string>& patterns) {
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
    std::string best;
    size_t best_d = 4;
    for (const KernelSpec& k : all) {
      const size_t d = edit_distance(p, k.name);
      if (d < best_d) best_d = d, best = k.name;
    }
    sel.errors.push_back("no kernel matches '" + p + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)"));
  }
  return sel;
}

}  // namespace hk
