#include "select/shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "select/case_filter.h"
#include "model/case_plan.h"
#include "select/case_schedule.h"
#include "contracts/results_file.h"
#include "util/whole_number.h"

namespace hk {

namespace {

size_t parse_count(const std::string& text, const std::string& whole) {
  const auto v = parse_whole_number(text);
  if (!v || *v > 1000000) throw std::invalid_argument(fmt::format("'{}' is not K/N (e.g. 2/4)", whole));
  return static_cast<size_t>(*v);
}


}  // namespace

ShardSpec parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw std::invalid_argument(fmt::format("'{}' is not K/N (e.g. 2/4)", text));
  const size_t k = parse_count(text.substr(0, slash), text), n = parse_count(text.substr(slash + 1), text);
  if (n < 1 || n > 1000 || k < 1 || k > n)
    throw std::invalid_argument(fmt::format("'{}': K must be 1 to N, and N 1 to 1000", text));
  return ShardSpec{k - 1, n};
}

std::map<std::string, double> recorded_durations(const std::string& results) {
  std::map<std::string, double> ms;
  for (const CaseResult& r : read_results_file(results).doc.cases) ms[case_id(r.kernel, r.case_name)] = r.timings.wall_ms;
  return ms;
}

std::set<std::string> shard_ids(const std::vector<const KernelSpec*>& kernels, const ShardSpec& s,
                                const std::map<std::string, double>& durations) {
  struct Item {
    std::string id;
    double cost;
  };
  std::vector<Item> items;
  for (const KernelSpec* k : kernels)
    for (const CaseSpec& c : k->cases) {
      const std::string id = case_id(k->name, c.name);
      const auto it = durations.find(id);
      // Recorded times and estimates are not on one scale: with durations, a case missing from
      // them costs the median of the recorded ones.
      items.push_back({id, durations.empty() ? estimated_case_cost(*k, c) : it != durations.end() ? it->second : -1});
    }
  if (!durations.empty()) {
    std::vector<double> known;
    for (const Item& i : items)
      if (i.cost >= 0) known.push_back(i.cost);
    std::sort(known.begin(), known.end());
    const double median = known.empty() ? 1 : known[known.size() / 2];
    for (Item& i : items)
      if (i.cost < 0) i.cost = median;
  }
  // Longest first, each to the lightest shard so far (ties: the lower index): deterministic.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.cost != b.cost ? a.cost > b.cost : a.id < b.id; });
  std::vector<double> load(s.count, 0);
  std::set<std::string> mine;
  for (const Item& i : items) {
    const size_t to = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[to] += i.cost;
    if (to == s.index) mine.insert(i.id);
  }
  return mine;
}

}  // namespace hk
