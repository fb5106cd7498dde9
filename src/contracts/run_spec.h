// RunSpec: everything that decides which cases a run takes and how it runs them, as one record.
// It is written once, by the run, into its journal header and into "run.spec" of
// test_results.json, and read back only through from_json: --resume restores it, merge compares
// it between the parts, diff shows it, and rerun.sh is generated from it (docs/results.md).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace hk {

// Bumped when a field changes meaning or a required one is added; from_json refuses others.
// Fields added since version 1 are optional, their default meaning "not used", so that the
// records of older runs (committed results among them) still read.
constexpr int kRunSpecVersion = 1;

// Which cases: the command line's selection as given (paths made absolute).
struct SelectionSpec {
  std::vector<std::string> patterns;       // kernel names, globs, or kernel/case globs
  std::vector<std::string> case_patterns;  // -k
  std::vector<std::string> excludes;       // --exclude
  std::string last_failed;                 // --last-failed DIR, or ""
  std::string shard;                       // --shard K/N, or "" for the whole selection
  std::string shard_durations;             // --shard-durations FILE, or ""
  bool operator==(const SelectionSpec&) const = default;
};

struct RunSpec {
  SelectionSpec selection;
  uint64_t seed = 0;
  std::vector<uint64_t> seeds;  // --seeds: every case once per seed (seed is then unused); [] for one seed
  std::string manifests;        // the manifest folder, absolute
  std::string references;       // the project's references/ folder, absolute (it may not exist)
  std::string backend = "auto";  // as run: cuda, hip, host; "none" when no device; "compile-only"
  std::vector<int> devices{0};
  std::string host_profile;      // the host backend's --host-profile
  int host_threads = 0;          // --host-threads (0: one per core)
  std::string tier = "auto";     // as run: "small" or "all"
  int repeat = 1;
  std::string source_vendor;     // as run: "cuda" or "hip" ("" before a device is known)
  std::string isolation = "worker";
  double timeout = 30;
  int64_t memory_limit = -1;     // --memory-limit as given: bytes, 0 for none, -1 for auto (memory_limit.h)
  bool exit_first = false;       // -x
  int max_fail = 0;              // --maxfail N: no new case after N did not pass; 0: no limit (optional field)
  std::vector<std::string> axes;  // -a NAME=VALUES as given: sweep axes replaced (optional field)
  int time_launches = 0;         // --time: launches timed per passing case; 0 without --time
  std::string sanitize;          // "", "failures" (a bare --sanitize) or TOOL[,TOOL]
  bool races = false;            // --races: the host backend's race detector
  bool reference_cache = true;   // false with --no-ref-cache (optional in the JSON: absent is true)
  bool operator==(const RunSpec&) const = default;
};

void to_json(nlohmann::json& j, const SelectionSpec& s);
void from_json(const nlohmann::json& j, SelectionSpec& s);
void to_json(nlohmann::json& j, const RunSpec& s);
// Every field but reference_cache is required; throws nlohmann::json::exception naming the key, or
// std::runtime_error for another "version".
void from_json(const nlohmann::json& j, RunSpec& s);

// A field whose value differs between two RunSpecs: named by the option that sets it ("--seed",
// "-k"; "kernel patterns" for the positional ones), with both values as JSON text.
struct SpecDifference {
  std::string field, a, b;
};
// Machine-local fields (manifests, references, devices, the paths of --last-failed and
// --shard-durations) are compared only with local_fields.
std::vector<SpecDifference> spec_differences(const RunSpec& a, const RunSpec& b, bool local_fields);

}  // namespace hk
