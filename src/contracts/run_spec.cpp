#include "contracts/run_spec.h"
#include "util/json_field.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "process/memory_limit.h"

namespace hk {
namespace {

using nlohmann::json;

// One row per field, named by the option that sets it: differences are listed from this table,
// so a new field is compared once it has a row.
struct Field {
  const char* option;
  bool local;  // a path or index of the machine it ran on, not of the run
  json (*get)(const RunSpec&);
};

const Field kFields[] = {
    {"kernel patterns", false, [](const RunSpec& s) { return json(s.selection.patterns); }},
    {"-k", false, [](const RunSpec& s) { return json(s.selection.case_patterns); }},
    {"--exclude", false, [](const RunSpec& s) { return json(s.selection.excludes); }},
    {"--last-failed", true, [](const RunSpec& s) { return json(s.selection.last_failed); }},
    {"--shard", false, [](const RunSpec& s) { return json(s.selection.shard); }},
    {"--shard-durations", true, [](const RunSpec& s) { return json(s.selection.shard_durations); }},
    {"--seed", false, [](const RunSpec& s) { return json(s.seed); }},
    {"--seeds", false, [](const RunSpec& s) { return json(s.seeds); }},
    {"--manifests", true, [](const RunSpec& s) { return json(s.manifests); }},
    {"references", true, [](const RunSpec& s) { return json(s.references); }},
    {"--backend", false, [](const RunSpec& s) { return json(s.backend); }},
    {"--devices", true, [](const RunSpec& s) { return json(s.devices); }},
    {"--host-profile", false, [](const RunSpec& s) { return json(s.host_profile); }},
    {"--host-threads", false, [](const RunSpec& s) { return json(s.host_threads); }},
    {"--tier", false, [](const RunSpec& s) { return json(s.tier); }},
    {"--repeat", false, [](const RunSpec& s) { return json(s.repeat); }},
    {"--source", false, [](const RunSpec& s) { return json(s.source_vendor); }},
    {"--isolation", false, [](const RunSpec& s) { return json(s.isolation); }},
    {"--timeout", false, [](const RunSpec& s) { return json(s.timeout); }},
    {"--memory-limit", false, [](const RunSpec& s) { return json(memory_limit_text(s.memory_limit)); }},
    {"-x", false, [](const RunSpec& s) { return json(s.exit_first); }},
    {"--maxfail", false, [](const RunSpec& s) { return json(s.max_fail); }},
    {"-a", false, [](const RunSpec& s) { return json(s.axes); }},
    {"--time-launches", false, [](const RunSpec& s) { return json(s.time_launches); }},
    {"--sanitize", false, [](const RunSpec& s) { return json(s.sanitize); }},
    {"--races", false, [](const RunSpec& s) { return json(s.races); }},
    // Where references come from does not change a verdict: parts may differ in it.
    {"--no-ref-cache", true, [](const RunSpec& s) { return json(!s.reference_cache); }},
};

}  // namespace

void to_json(json& j, const SelectionSpec& s) {
  j = {{"patterns", s.patterns}, {"k", s.case_patterns},  {"exclude", s.excludes},
       {"last_failed", s.last_failed}, {"shard", s.shard}, {"shard_durations", s.shard_durations}};
}

void from_json(const json& j, SelectionSpec& s) {
  read_field(j, "patterns", s.patterns);
  read_field(j, "k", s.case_patterns);
  read_field(j, "exclude", s.excludes);
  read_field(j, "last_failed", s.last_failed);
  read_field(j, "shard", s.shard);
  read_field(j, "shard_durations", s.shard_durations);
}

void to_json(json& j, const RunSpec& s) {
  j = {{"version", kRunSpecVersion},
       {"selection", s.selection},
       {"seed", s.seed},
       {"seeds", s.seeds},
       {"manifests", s.manifests},
       {"references", s.references},
       {"backend", s.backend},
       {"devices", s.devices},
       {"host_profile", s.host_profile},
       {"host_threads", s.host_threads},
       {"tier", s.tier},
       {"repeat", s.repeat},
       {"source_vendor", s.source_vendor},
       {"isolation", s.isolation},
       {"timeout", s.timeout},
       {"memory_limit", memory_limit_text(s.memory_limit)},
       {"exit_first", s.exit_first},
       {"max_fail", s.max_fail},
       {"axes", s.axes},
       {"time_launches", s.time_launches},
       {"sanitize", s.sanitize},
       {"races", s.races},
       {"reference_cache", s.reference_cache}};
}

void from_json(const json& j, RunSpec& s) {
  int version = 0;
  read_field(j, "version", version);
  if (version != kRunSpecVersion)
    throw JsonFieldError("/version", fmt::format("a run record of version {}; this hkcheck reads version {}", version, kRunSpecVersion));
  read_field(j, "selection", s.selection);
  read_field(j, "seed", s.seed);
  read_field(j, "seeds", s.seeds);
  read_field(j, "manifests", s.manifests);
  read_field(j, "references", s.references);
  read_field(j, "backend", s.backend);
  read_field(j, "devices", s.devices);
  read_field(j, "host_profile", s.host_profile);
  read_field(j, "host_threads", s.host_threads);
  read_field(j, "tier", s.tier);
  read_field(j, "repeat", s.repeat);
  read_field(j, "source_vendor", s.source_vendor);
  read_field(j, "isolation", s.isolation);
  read_field(j, "timeout", s.timeout);
  // Added after version 1: records of older runs lack it, and ran with no memory limit.
  std::string memory_limit = "none";
  read_optional_field(j, "memory_limit", memory_limit);
  try {
    s.memory_limit = parse_memory_limit(memory_limit);
  } catch (const std::invalid_argument& e) {
    throw JsonFieldError("/memory_limit", e.what());
  }
  read_field(j, "exit_first", s.exit_first);
  read_optional_field(j, "max_fail", s.max_fail);
  read_optional_field(j, "axes", s.axes);
  read_field(j, "time_launches", s.time_launches);
  read_field(j, "sanitize", s.sanitize);
  // Records written before --races existed lack it; they ran without the detector.
  s.races = false;
  read_optional_field(j, "races", s.races);
  // Added after version 1 without a bump: records of older runs lack it, and read as on.
  s.reference_cache = true;
  read_optional_field(j, "reference_cache", s.reference_cache);
}

std::vector<SpecDifference> spec_differences(const RunSpec& a, const RunSpec& b, bool local_fields) {
  std::vector<SpecDifference> out;
  for (const Field& f : kFields) {
    if (f.local && !local_fields) continue;
    const json va = f.get(a), vb = f.get(b);
    if (va != vb) out.push_back({f.option, va.dump(), vb.dump()});
  }
  return out;
}

}  // namespace hk
