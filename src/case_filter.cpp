#include "case_filter.h"

#include <fnmatch.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "result.h"
#include "results_file.h"

namespace hk {

std::string case_id(const std::string& kernel, const std::string& case_name) { return kernel + "/" + case_name; }

bool id_matches(const std::string& pattern, const std::string& id) {
  if (pattern.find_first_of("*?[") != std::string::npos) return fnmatch(pattern.c_str(), id.c_str(), 0) == 0;
  return id.find(pattern) != std::string::npos;
}

std::set<std::string> ids_not_passed(const std::string& results) {
  const ResultsFile f = read_results_file(results);
  const std::string& file = f.path;
  std::set<std::string> ids;
  try {
    for (const nlohmann::json& c : f.doc["cases"]) {
      const auto st = parse_status(c.at("status").get<std::string>());
      if (!st) throw std::runtime_error("unknown status '" + c.at("status").get<std::string>() + "'");
      if (*st != Status::PASS && *st != Status::SKIP && *st != Status::XFAIL)
        ids.insert(case_id(c.at("kernel").get<std::string>(), c.at("case").get<std::string>()));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(file + ": not a results file: " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(file + ": " + e.what());
  }
  return ids;
}

size_t filter_cases(KernelSpec& k, const CaseFilter& f) {
  if (!f.active()) return k.cases.size();
  auto takes = [&](const CaseSpec& c) {
    const std::string id = case_id(k.name, c.name);
    auto any = [&](const std::vector<std::string>& patterns) {
      return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return id_matches(p, id); });
    };
    return (f.include.empty() || any(f.include)) && (f.keyword.empty() || any(f.keyword)) && !any(f.exclude) &&
           (!f.only || f.only->count(id));
  };
  k.cases.erase(std::remove_if(k.cases.begin(), k.cases.end(), [&](const CaseSpec& c) { return !takes(c); }), k.cases.end());
  return k.cases.size();
}

}  // namespace hk
