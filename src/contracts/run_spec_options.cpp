#include "contracts/run_spec_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "process/memory_limit.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

// "0..4,9": ascending runs of consecutive seeds as ranges, in the order given.
std::string seed_list(const std::vector<uint64_t>& seeds) {
  std::string out;
  for (size_t i = 0; i < seeds.size();) {
    size_t j = i;
    while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (j > i ? fmt::format("{}..{}", seeds[i], seeds[j]) : std::to_string(seeds[i]));
    i = j + 1;
  }
  return out;
}

void selection_options(const SelectionSpec& sel, std::vector<std::string>& o) {
  for (const std::string& p : sel.case_patterns) o.insert(o.end(), {"-k", p});
  for (const std::string& p : sel.excludes) o.insert(o.end(), {"--exclude", p});
  if (!sel.last_failed.empty()) o.insert(o.end(), {"--last-failed", sel.last_failed});
  if (!sel.shard.empty()) o.insert(o.end(), {"--shard", sel.shard});
  if (!sel.shard_durations.empty()) o.insert(o.end(), {"--shard-durations", sel.shard_durations});
}

}  // namespace

std::vector<std::string> spec_options(const RunSpec& s) {
  std::vector<std::string> o;
  o.insert(o.end(), {"--backend", find_backend(s.backend) ? s.backend : "auto"});
  if (s.devices.size() == 1) o.insert(o.end(), {"--device", std::to_string(s.devices.front())});
  else if (!s.devices.empty()) o.insert(o.end(), {"--devices", fmt::format("{}", fmt::join(s.devices, ","))});
  if (s.seeds.empty()) o.insert(o.end(), {"--seed", std::to_string(s.seed)});
  else o.insert(o.end(), {"--seeds", seed_list(s.seeds)});
  if (!s.host_profile.empty()) o.insert(o.end(), {"--host-profile", s.host_profile});
  o.insert(o.end(), {"--host-threads", std::to_string(s.host_threads), "--tier", s.tier, "--repeat", std::to_string(s.repeat)});
  if (!s.source_vendor.empty()) o.insert(o.end(), {"--source", s.source_vendor});
  o.insert(o.end(), {"--isolation", s.isolation, "--timeout", fmt::format("{}", s.timeout)});
  o.insert(o.end(), {"--memory-limit", memory_limit_text(s.memory_limit)});
  if (s.exit_first) o.push_back("-x");
  if (!s.reference_cache) o.push_back("--no-ref-cache");
  if (s.max_fail > 0) o.insert(o.end(), {"--maxfail", std::to_string(s.max_fail)});
  for (const std::string& a : s.axes) o.insert(o.end(), {"-a", a});
  if (s.time_launches > 0) o.insert(o.end(), {"--time", "--time-launches", std::to_string(s.time_launches)});
  if (s.sanitize == "failures") o.push_back("--sanitize");
  else if (!s.sanitize.empty()) o.push_back("--sanitize=" + s.sanitize);
  if (s.races) o.push_back("--races");
  selection_options(s.selection, o);
  o.insert(o.end(), s.selection.patterns.begin(), s.selection.patterns.end());
  return o;
}

RunSpec rerun_spec(const RunSpec& run, uint64_t case_seed) {
  RunSpec r = run;
  r.selection = SelectionSpec{};
  r.seed = case_seed;
  r.seeds.clear();
  r.isolation = "case";
  if (!r.devices.empty()) r.devices = {r.devices.front()};
  r.exit_first = false;
  r.max_fail = 0;
  return r;
}

}  // namespace hk
