#include "contracts/run_spec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

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
    {"-x", false, [](const RunSpec& s) { return json(s.exit_first); }},
    {"--time-launches", false, [](const RunSpec& s) { return json(s.time_launches); }},
    {"--sanitize", false, [](const RunSpec& s) { return json(s.sanitize); }},
    // Where references come from does not change a verdict: parts may differ in it.
    {"--no-ref-cache", true, [](const RunSpec& s) { return json(!s.reference_cache); }},
};

}  // namespace

void to_json(json& j, const SelectionSpec& s) {
  j = {{"patterns", s.patterns}, {"k", s.case_patterns},  {"exclude", s.excludes},
       {"last_failed", s.last_failed}, {"shard", s.shard}, {"shard_durations", s.shard_durations}};
}

void from_json(const json& j, SelectionSpec& s) {
  s.patterns = j.at("patterns").get<std::vector<std::string>>();
  s.case_patterns = j.at("k").get<std::vector<std::string>>();
  s.excludes = j.at("exclude").get<std::vector<std::string>>();
  s.last_failed = j.at("last_failed").get<std::string>();
  s.shard = j.at("shard").get<std::string>();
  s.shard_durations = j.at("shard_durations").get<std::string>();
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
       {"exit_first", s.exit_first},
       {"time_launches", s.time_launches},
       {"sanitize", s.sanitize},
       {"reference_cache", s.reference_cache}};
}

void from_json(const json& j, RunSpec& s) {
  const int version = j.at("version").get<int>();
  if (version != kRunSpecVersion)
    throw std::runtime_error(fmt::format("/version: a run record of version {}; this hkcheck reads version {}", version, kRunSpecVersion));
  s.selection = j.at("selection").get<SelectionSpec>();
  s.seed = j.at("seed").get<uint64_t>();
  s.seeds = j.at("seeds").get<std::vector<uint64_t>>();
  s.manifests = j.at("manifests").get<std::string>();
  s.references = j.at("references").get<std::string>();
  s.backend = j.at("backend").get<std::string>();
  s.devices = j.at("devices").get<std::vector<int>>();
  s.host_profile = j.at("host_profile").get<std::string>();
  s.host_threads = j.at("host_threads").get<int>();
  s.tier = j.at("tier").get<std::string>();
  s.repeat = j.at("repeat").get<int>();
  s.source_vendor = j.at("source_vendor").get<std::string>();
  s.isolation = j.at("isolation").get<std::string>();
  s.timeout = j.at("timeout").get<double>();
  s.exit_first = j.at("exit_first").get<bool>();
  s.time_launches = j.at("time_launches").get<int>();
  s.sanitize = j.at("sanitize").get<std::string>();
  // Added after version 1 without a bump: records of older runs lack it, and read as on.
  s.reference_cache = j.value("reference_cache", true);
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
