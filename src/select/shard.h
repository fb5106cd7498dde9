// --shard K/N: one part of a run for a CI matrix or a job array, and `hkcheck merge` to put the
// parts back together. The parts of one selection are disjoint and cover it, and are balanced
// by the cost of each case: its wall time in an earlier run (--shard-durations), else an
// estimate from the elements its tensors hold.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/manifest.h"

namespace hk {

struct ShardSpec {
  size_t index = 0, count = 1;  // 0-based index of count
};
// "K/N" with 1 <= K <= N <= 1000; throws std::invalid_argument saying what is wrong.
ShardSpec parse_shard(const std::string& text);

// Wall time (ms) per case id from a results file or folder; throws std::runtime_error.
std::map<std::string, double> recorded_durations(const std::string& results);

// The ids of the cases of `kernels` that fall in shard s. Every shard of the same kernels and
// durations is computed the same way, so the shards are disjoint and cover every case.
std::set<std::string> shard_ids(const std::vector<const KernelSpec*>& kernels, const ShardSpec& s,
                                const std::map<std::string, double>& durations);

}  // namespace hk
