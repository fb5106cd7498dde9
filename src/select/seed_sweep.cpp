#include "select/seed_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "util/whole_number.h"

namespace hk {

namespace {

uint64_t parse_seed(const std::string& text, const std::string& whole) {
  const auto v = parse_whole_number(text);
  if (!v) throw std::invalid_argument(fmt::format("'{}' in '{}' is not a seed (a whole number from 0 to 2^64-1)", text, whole));
  return *v;
}

}  // namespace

std::vector<uint64_t> parse_seed_list(const std::string& text) {
  std::vector<uint64_t> seeds;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (const size_t dots = item.find(".."); dots != std::string::npos) {
      const uint64_t a = parse_seed(item.substr(0, dots), text), b = parse_seed(item.substr(dots + 2), text);
      if (b < a) throw std::invalid_argument(fmt::format("'{}' counts down; write the smaller seed first", item));
      if (b - a >= kMaxSeeds) throw std::invalid_argument(fmt::format("'{}' is more than {} seeds", item, kMaxSeeds));
      for (uint64_t s = a;; ++s) {
        seeds.push_back(s);
        if (s == b) break;
      }
    } else {
      seeds.push_back(parse_seed(item, text));
    }
    if (seeds.size() > kMaxSeeds) throw std::invalid_argument(fmt::format("more than {} seeds", kMaxSeeds));
    start = comma + 1;
  }
  std::vector<uint64_t> sorted = seeds;
  std::sort(sorted.begin(), sorted.end());
  if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end())
    throw std::invalid_argument(fmt::format("seed {} is given twice", *dup));
  return seeds;
}

void sweep_seeds(KernelSpec& k, const std::vector<uint64_t>& seeds) {
  std::vector<CaseSpec> swept;
  swept.reserve(k.cases.size() * seeds.size());
  for (const CaseSpec& c : k.cases) {
    for (uint64_t s : seeds) {
      CaseSpec copy = c;
      copy.name = fmt::format("{} seed={}", c.name, s);
      copy.seed = s;
      copy.swept_from = c.name;
      swept.push_back(std::move(copy));
    }
  }
  k.cases = std::move(swept);
}

std::vector<SeedSummary> summarize_seeds(const std::vector<CaseResult>& results) {
  std::vector<SeedSummary> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const CaseResult& r : results) {
    if (!r.seed) continue;
    const auto key = std::make_pair(r.kernel, r.swept_from);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back(SeedSummary{r.kernel, r.swept_from, 0, {}});
    }
    SeedSummary& s = out[it->second];
    ++s.seeds;
    if (!status_ok(r.status)) s.not_passed.emplace_back(*r.seed, r.status);
  }
  return out;
}

}  // namespace hk
