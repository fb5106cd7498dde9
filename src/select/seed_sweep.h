// --seeds: every selected case runs once per seed, each copy named "<case> seed=N" so results,
// diffs and JUnit keep one entry per copy; a summary groups the copies back (docs/results.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/manifest.h"
#include "contracts/result.h"

namespace hk {

// "0..4" (both ends included), "1,5,9" or a mix ("0..2,7"); at most kMaxSeeds seeds, no repeats.
// Throws std::invalid_argument saying what is wrong with text.
constexpr size_t kMaxSeeds = 1000;
std::vector<uint64_t> parse_seed_list(const std::string& text);

// Replaces every case of k by one copy per seed.
void sweep_seeds(KernelSpec& k, const std::vector<uint64_t>& seeds);

// A swept case: how many seeds ran it and which did not pass, with their verdicts.
struct SeedSummary {
  std::string kernel, case_name;
  int seeds = 0;
  std::vector<std::pair<uint64_t, Status>> not_passed;
};
// One entry per swept case, in the results' order; empty when no result came from a sweep.
std::vector<SeedSummary> summarize_seeds(const std::vector<CaseResult>& results);

}  // namespace hk
