// The typed run record: RunSpec, RunInfo and the results document round-trip through JSON, every
// field of RunSpec is compared, and its command-line form parses back to the same RunSpec (what
// rerun.sh relies on).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/cli/command_line.h"
#include "app/cli/run_spec_settings.h"
#include "contracts/journal_header.h"
#include "contracts/results_document.h"
#include "contracts/run_spec_options.h"
#include "process/memory_limit.h"
#include "select/seed_sweep.h"

namespace hk {
namespace {

using nlohmann::json;

// Every field away from its default.
RunSpec unusual_spec() {
  RunSpec s;
  s.selection = {{"rmsnorm", "silu/*f16*"}, {"M=7", "dtype=bf16"}, {"D=4096"}, "/tmp/earlier", "2/3", "/tmp/durations.json"};
  s.seed = 0;
  s.seeds = {0, 1, 2, 3, 9, 7};
  s.manifests = "/p/manifests";
  s.references = "/p/references";
  s.backend = "host";
  s.devices = {1, 3};
  s.host_profile = "mi325x";
  s.host_threads = 5;
  s.tier = "all";
  s.repeat = 4;
  s.source_vendor = "hip";
  s.isolation = "case";
  s.timeout = 7.5;
  s.memory_limit = int64_t{3} << 30;
  s.exit_first = true;
  s.max_fail = 3;
  s.axes = {"N=[128,256]", "dtype=f16"};
  s.time_launches = 11;
  s.sanitize = "racecheck,memcheck";
  s.races = true;
  s.reference_cache = false;
  return s;
}

TEST(RunSpec, RoundTripsThroughJson) {
  const RunSpec s = unusual_spec();
  EXPECT_EQ(json(s).get<RunSpec>(), s);
  EXPECT_EQ(json(RunSpec{}).get<RunSpec>(), RunSpec{});
}

TEST(RunSpec, EveryFieldIsRequiredAndAnotherVersionRefused) {
  const json j = unusual_spec();
  // Fields added after version 1 are optional: a record without them reads as "not used".
  const std::set<std::string> optional = {"max_fail", "axes", "races", "reference_cache"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    json without = j;
    without.erase(it.key());
    // Records of older runs: no memory limit; the others read as their defaults.
    if (it.key() == "memory_limit") {
      EXPECT_EQ(without.get<RunSpec>().memory_limit, kMemoryLimitNone);
      continue;
    }
    if (optional.count(it.key())) {
      EXPECT_EQ(json(without.get<RunSpec>())[it.key()], json(RunSpec{})[it.key()]) << it.key();
      continue;
    }
    EXPECT_ANY_THROW(without.get<RunSpec>()) << it.key();
  }
  json later = j;
  later["version"] = kRunSpecVersion + 1;
  EXPECT_THROW(later.get<RunSpec>(), std::runtime_error);
}

// A field that spec_differences does not compare would let merge join different runs and
// --resume take a changed setting: each field changed alone must be found.
TEST(RunSpec, EveryFieldIsCompared) {
  const RunSpec base = unusual_spec();
  const json j = base;
  const std::vector<std::pair<std::string, json>> changes = {
      {"/selection/patterns", json::array()}, {"/selection/k", json::array()},    {"/selection/exclude", json::array()},
      {"/selection/last_failed", ""},         {"/selection/shard", "1/3"},        {"/selection/shard_durations", ""},
      {"/seed", 5},                           {"/seeds", json::array()},          {"/manifests", "/q"},
      {"/references", "/q"},                  {"/backend", "cuda"},               {"/devices", {0}},
      {"/host_profile", "h100"},              {"/host_threads", 0},               {"/tier", "small"},
      {"/repeat", 1},                         {"/source_vendor", "cuda"},         {"/isolation", "worker"},
      {"/timeout", 30},                       {"/memory_limit", "auto"},          {"/exit_first", false},
      {"/time_launches", 0},                  {"/sanitize", ""},                  {"/races", false},
      {"/reference_cache", true},             {"/max_fail", 0},                   {"/axes", json::array()}};
  std::set<std::string> changed_keys, every_key;
  for (const auto& [key, value] : j.items())
    if (key != "version" && key != "selection") every_key.insert("/" + key);
  for (const auto& [key, value] : j["selection"].items()) every_key.insert("/selection/" + key);
  for (const auto& [pointer, value] : changes) {
    json k = j;
    k[json::json_pointer(pointer)] = value;
    const auto d = spec_differences(base, k.get<RunSpec>(), true);
    EXPECT_EQ(d.size(), 1u) << pointer;
    changed_keys.insert(pointer);
  }
  EXPECT_EQ(changed_keys, every_key) << "a field of RunSpec has no change above";
  EXPECT_TRUE(spec_differences(base, base, true).empty());
  RunSpec elsewhere = base;
  elsewhere.manifests = "/other", elsewhere.devices = {0};
  EXPECT_TRUE(spec_differences(base, elsewhere, false).empty()) << "paths and devices of another machine";
}

std::optional<int> parse(std::vector<std::string> args, Settings& s) {
  args.insert(args.begin(), "hkcheck");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), s);
}

// rerun.sh is written from spec_options: parsed, they must give the same RunSpec back.
TEST(RunSpec, ItsOptionsParseBackToIt) {
  for (RunSpec spec : {unusual_spec(), RunSpec{}}) {
    spec.manifests = "/p/manifests", spec.references = "/p/references";
    if (spec.host_profile.empty()) spec.host_profile = "h100";
    Settings s;
    std::vector<std::string> args = spec_options(spec);
    args.insert(args.end(), {"--manifests", spec.manifests});
    ASSERT_FALSE(parse(args, s).has_value()) << json(args).dump();
    const RunSpec back = spec_from_settings(s, s.seeds.empty() ? std::vector<uint64_t>{} : parse_seed_list(s.seeds), spec.references);
    EXPECT_EQ(json(back), json(spec)) << json(args).dump();
  }
}

TEST(RunSpec, TheRerunOfACaseTakesItsSeedAndAFreshWorker) {
  const RunSpec r = rerun_spec(unusual_spec(), 9);
  EXPECT_EQ(r.selection, SelectionSpec{}) << "the repro's manifest holds the one case";
  EXPECT_EQ(r.seed, 9u);
  EXPECT_TRUE(r.seeds.empty());
  EXPECT_EQ(r.isolation, "case");
  EXPECT_EQ(r.devices, std::vector<int>{1});
  EXPECT_FALSE(r.exit_first);
  for (const auto& d : spec_differences(unusual_spec(), r, true))
    EXPECT_TRUE(d.field == "kernel patterns" || d.field == "-k" || d.field == "--exclude" || d.field == "--last-failed" ||
                d.field == "--shard" || d.field == "--shard-durations" || d.field == "--seed" || d.field == "--seeds" ||
                d.field == "--isolation" || d.field == "--devices" || d.field == "-x" || d.field == "--maxfail")
        << d.field << " should be the run's";
}

RunInfo unusual_run() {
  RunInfo r;
  r.hkcheck_version = "0.1.0", r.git_commit = "abc", r.host = "h", r.started_at = "2026-01-01T00:00:00Z";
  r.spec = unusual_spec();
  r.device = DeviceInfo{};
  r.device->backend = "host", r.device->name = "host mi325x", r.device->arch = "gfx942", r.device->warp_size = 64;
  r.command = {"hkcheck", "--all"};
  r.manifest_errors = {"m.json: /kernels/0: bad"};
  r.wall_s = 3.5;
  r.interrupted = "SIGINT";
  r.resumed_from = "/out/results.jsonl";
  r.sanitizer = SanitizerRun{true, "", "/usr/bin/compute-sanitizer", {"racecheck"}, true};
  r.missing_shards = {"3/3"};
  return r;
}

TEST(RunInfo, RoundTripsThroughJson) {
  const RunInfo r = unusual_run();
  const RunInfo back = json(r).get<RunInfo>();
  EXPECT_EQ(json(back), json(r));
  EXPECT_EQ(back.device->warp_size, 64);
  EXPECT_EQ(back.sanitizer, r.sanitizer);
  RunInfo none;
  EXPECT_TRUE(json(none)["device"].is_null());
  EXPECT_FALSE(json(none).get<RunInfo>().device.has_value());
  none.sanitizer = SanitizerRun{false, "needs the CUDA backend", "", {}, false};
  EXPECT_EQ(json(none).get<RunInfo>().sanitizer, none.sanitizer);
}

TEST(ResultsDocument, RoundTripsKeepingEachCompileLogOnce) {
  ResultsDocument d;
  d.run = unusual_run();
  for (const char* name : {"a", "b"}) {
    CaseResult r;
    r.kernel = "k", r.case_name = name, r.status = Status::COMPILE_ERROR, r.compile_log = "k.cu(1): error: the same log";
    d.cases.push_back(r);
  }
  const json j = d;
  EXPECT_EQ(j["schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(j["compile_logs"].size(), 1u);
  EXPECT_EQ(j["summary"]["COMPILE_ERROR"], 2);
  const ResultsDocument back = j.get<ResultsDocument>();
  EXPECT_EQ(json(back), j);
  EXPECT_EQ(back.cases[1].compile_log, "k.cu(1): error: the same log");
  json dangling = j;
  dangling["compile_logs"] = json::object();
  EXPECT_THROW(dangling.get<ResultsDocument>(), std::runtime_error);
}

TEST(JournalHeader, RoundTripsThroughJson) {
  JournalHeader h{"0.1.0", "abc", "2026-01-01T00:00:00Z", unusual_spec(), std::nullopt, {"k/a", "k/b"}};
  const JournalHeader back = json(h).get<JournalHeader>();
  EXPECT_EQ(back.spec, h.spec);
  EXPECT_EQ(back.cases, h.cases);
  EXPECT_FALSE(back.device.has_value());
  EXPECT_EQ(json(back), json(h));
}

}  // namespace
}  // namespace hk
