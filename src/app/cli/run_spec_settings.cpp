#include "app/cli/run_spec_settings.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hk {
namespace {

std::string absolute_or_empty(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace

RunSpec spec_from_settings(const Settings& s, const std::vector<uint64_t>& seeds, const std::string& references) {
  RunSpec r;
  r.selection = SelectionSpec{s.select.patterns,
                              s.select.case_patterns,
                              s.select.excludes,
                              absolute_or_empty(s.select.last_failed),
                              s.select.shard,
                              absolute_or_empty(s.select.shard_durations)};
  r.seed = s.seed;
  r.seeds = seeds;
  r.manifests = absolute_or_empty(s.manifest_dir);
  r.references = absolute_or_empty(references);
  r.backend = s.backend;
  r.devices = s.devices.empty() ? std::vector<int>{s.device} : s.devices;
  r.host_profile = s.host.profile;
  r.host_threads = s.host.threads;
  r.tier = s.tier;
  r.repeat = s.repeat;
  r.source_vendor = s.source_vendor;
  r.isolation = s.isolation;
  r.timeout = s.timeout;
  r.memory_limit = s.memory_limit;
  r.exit_first = s.exit_first;
  r.reference_cache = !s.no_ref_cache;
  r.max_fail = s.max_fail;
  r.axes = s.axes;
  r.time_launches = s.time ? s.time_launches : 0;
  r.sanitize = s.sanitize;
  r.races = s.host.races;
  return r;
}

void apply_spec(const RunSpec& spec, Settings& s) {
  const SelectionSpec& sel = spec.selection;
  s.select.patterns = sel.patterns;
  s.select.case_patterns = sel.case_patterns;
  s.select.excludes = sel.excludes;
  s.select.last_failed = sel.last_failed;
  s.select.shard = sel.shard;
  s.select.shard_durations = sel.shard_durations;
  s.seed = spec.seed;
  s.seeds = spec.seeds.empty() ? "" : fmt::format("{}", fmt::join(spec.seeds, ","));
  s.root_dir.clear();
  s.manifest_dir = spec.manifests;
  if (spec.backend != "none") s.backend = spec.backend;
  s.devices = spec.devices;
  if (!s.devices.empty()) s.device = s.devices.front();
  s.host.profile = spec.host_profile;
  s.host.threads = spec.host_threads;
  s.tier = spec.tier;
  s.repeat = spec.repeat;
  s.source_vendor = spec.source_vendor;
  s.isolation = spec.isolation;
  s.timeout = spec.timeout;
  s.memory_limit = spec.memory_limit;
  s.exit_first = spec.exit_first;
  s.no_ref_cache = !spec.reference_cache;
  s.max_fail = spec.max_fail;
  s.axes = spec.axes;
  s.time = spec.time_launches > 0;
  if (s.time) s.time_launches = spec.time_launches;
  s.sanitize = spec.sanitize;
  s.host.races = spec.races;
}

}  // namespace hk
