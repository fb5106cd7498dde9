#include "model/kernel_entries.h"

#include <algorithm>

#include "model/case_plan.h"

namespace hk {

std::string entry_of(const KernelSpec& k, const CaseSpec& c) {
  if (k.entry.find('$') == std::string::npos) return k.entry;
  return substitute_params(k.entry, c.params, k.json_path + "/entry");
}

std::vector<std::string> entries_of(const KernelSpec& k) {
  if (k.entry.find('$') == std::string::npos) return {k.entry};
  std::vector<std::string> out;
  for (const CaseSpec& c : k.cases)
    if (std::string e = entry_of(k, c); std::find(out.begin(), out.end(), e) == out.end()) out.push_back(std::move(e));
  return out;
}

}  // namespace hk
