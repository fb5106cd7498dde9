#include "select/case_filter.h"

#include <algorithm>
#include <stdexcept>

#include "select/keyword_expr.h"
#include "contracts/result.h"
#include "contracts/results_file.h"

namespace hk {

std::set<std::string> ids_not_passed(const std::string& results) {
  std::set<std::string> ids;
  for (const CaseResult& r : read_results_file(results).doc.cases)
    if (r.status != Status::PASS && r.status != Status::SKIP && r.status != Status::XFAIL) ids.insert(case_id(r.kernel, r.case_name));
  return ids;
}

size_t filter_cases(KernelSpec& k, const CaseFilter& f) {
  if (!f.active()) return k.cases.size();
  std::vector<KeywordExpr> keywords;
  for (const std::string& text : f.keyword) keywords.emplace_back(text);
  auto takes = [&](const CaseSpec& c) {
    const std::string id = case_id(k.name, c.name);
    auto any = [&](const std::vector<std::string>& patterns) {
      return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return id_matches(p, id); });
    };
    return (f.include.empty() || any(f.include)) && (keywords.empty() || std::any_of(keywords.begin(), keywords.end(), [&](const KeywordExpr& e) { return e.matches(id); })) && !any(f.exclude) &&
           (!f.only || f.only->count(id));
  };
  k.cases.erase(std::remove_if(k.cases.begin(), k.cases.end(), [&](const CaseSpec& c) { return !takes(c); }), k.cases.end());
  return k.cases.size();
}

}  // namespace hk
