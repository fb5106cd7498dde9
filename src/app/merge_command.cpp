#include "app/merge_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "select/case_filter.h"
#include "model/exit_codes.h"
#include "run/out_lock.h"
#include "report/report.h"
#include "contracts/results_file.h"
#include "select/shard.h"

namespace hk {

namespace {

namespace fs = std::filesystem;

struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The reports merge writes must not be one of the files it reads.
void check_not_an_input(const std::string& out, const std::vector<std::string>& parts) {
  std::error_code ec;
  for (const char* name : {"test_results.json", "test_results.md"}) {
    const fs::path target = fs::weakly_canonical(fs::path(out) / name, ec);
    for (const std::string& p : parts) {
      const fs::path input = fs::weakly_canonical(fs::is_directory(p) ? fs::path(p) / "test_results.json" : fs::path(p), ec);
      if (input == target || fs::weakly_canonical(p, ec) == target)
        throw MergeError(fmt::format("{} would write over {}, one of the parts: give another OUT folder", (fs::path(out) / name).string(), p));
    }
  }
}

// What must be the same in every part: a merge of two devices, seeds or selections is not one
// run. The shard index differs by design; paths and devices of each machine may.
void check_same_run(const ResultsFile& first, const ResultsFile& part) {
  RunSpec a = first.doc.run.spec, b = part.doc.run.spec;
  a.selection.shard = b.selection.shard = "";
  std::string why;
  for (const SpecDifference& d : spec_differences(a, b, false)) why += fmt::format("; {} {} against {}", d.field, d.a, d.b);
  const auto device = [](const RunInfo& r) { return r.device ? r.device->name + " (" + r.device->arch + ")" : std::string("no device"); };
  if (device(first.doc.run) != device(part.doc.run)) why += "; device " + device(first.doc.run) + " against " + device(part.doc.run);
  if (!why.empty()) throw MergeError(fmt::format("{} and {} are not parts of one run{}", first.path, part.path, why));
}

// Every shard K/N of one N, each once; the missing ones are an error unless allow_partial, and
// are returned ("2/3").
std::vector<std::string> check_shards(const std::vector<ResultsFile>& parts, bool allow_partial) {
  std::map<size_t, std::string> have;  // 0-based index -> its part
  size_t count = 0;
  for (const ResultsFile& p : parts) {
    if (p.doc.schema_version < 2) {
      if (!allow_partial) throw MergeError(p.path + ": results of schema 1 record no shard: pass --allow-partial to merge them anyway");
      continue;
    }
    const std::string& text = p.doc.run.spec.selection.shard;
    const ShardSpec s = text.empty() ? ShardSpec{} : parse_shard(text);
    if (count && s.count != count) throw MergeError(fmt::format("{} is shard {}, another part one of {}", p.path, text.empty() ? "1/1 (the whole run)" : text, count));
    count = s.count;
    if (const auto [it, fresh] = have.emplace(s.index, p.path); !fresh)
      throw MergeError(count == 1 ? fmt::format("{} and {} are both whole runs (no --shard), not parts of one", it->second, p.path)
                                  : fmt::format("shard {}/{} is given twice: {} and {}", s.index + 1, count, it->second, p.path));
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < count; ++i)
    if (!have.count(i)) missing.push_back(fmt::format("{}/{}", i + 1, count));
  if (!missing.empty() && !allow_partial)
    throw MergeError(fmt::format("shard {} is missing ({} of {} given): merge every part, or pass --allow-partial", missing.front(),
                                 have.size(), count));
  return missing;
}

// The parts as one run: the first part's record, the longest wall time (parts run side by
// side), every part's manifest errors once, and an interrupt of any part.
RunInfo merged_run(const std::vector<ResultsFile>& parts, std::vector<std::string> missing) {
  RunInfo run = parts.front().doc.run;
  run.spec.selection.shard = "";
  run.missing_shards = std::move(missing);
  for (const ResultsFile& p : parts) {
    const RunInfo& r = p.doc.run;
    run.wall_s = std::max(run.wall_s, r.wall_s);
    for (const std::string& e : r.manifest_errors)
      if (std::find(run.manifest_errors.begin(), run.manifest_errors.end(), e) == run.manifest_errors.end()) run.manifest_errors.push_back(e);
    if (run.interrupted.empty()) run.interrupted = r.interrupted;
  }
  return run;
}

std::vector<CaseResult> merged_cases(const std::vector<ResultsFile>& parts) {
  std::vector<CaseResult> results;
  std::set<std::string> seen;
  for (const ResultsFile& p : parts)
    for (const CaseResult& r : p.doc.cases) {
      if (!seen.insert(case_id(r.kernel, r.case_name)).second)
        throw MergeError(fmt::format("{}: case {} is in an earlier part too", p.path, case_id(r.kernel, r.case_name)));
      results.push_back(r);
    }
  return results;
}

}  // namespace

int merge_main(int argc, char** argv) {
  CLI::App app{"hkcheck merge OUT PART...: the results of the parts of one run (--shard K/N, on one kind of device with one\n"
               "seed) written as one run into OUT: test_results.json and .md. Every shard must be given, once; a case found in\n"
               "two parts is an error, and OUT may not be the folder of a part.",
               "hkcheck merge"};
  std::string out;
  std::vector<std::string> part_paths;
  bool allow_partial = false;
  app.add_option("out", out, "Folder for the merged results")->required();
  app.add_option("parts", part_paths, "Result folders or test_results.json files of the parts")->required()->expected(1, -1);
  app.add_flag("--allow-partial", allow_partial,
               "Merge even when some shards are missing (they are listed in run.missing_shards), or a part records no shard");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  RunInfo run;
  std::vector<CaseResult> results;
  try {
    check_not_an_input(out, part_paths);
    std::vector<ResultsFile> parts;
    for (const std::string& p : part_paths) {
      parts.push_back(read_results_file(p));
      check_same_run(parts.front(), parts.back());
    }
    run = merged_run(parts, check_shards(parts, allow_partial));
    results = merged_cases(parts);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hkcheck merge: {}\n", e.what());
    return kExitUsage;
  }
  run.command.assign(argv - 1, argv + argc);  // main passed argv + 1: the whole command, "hkcheck merge ..."
  // The run lock of OUT, as a run takes it: a merge never writes into a folder a run is writing.
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  OutDirLock lock;
  if (std::string busy; !lock.acquire(out, &busy)) {
    fmt::print(stderr, "hkcheck merge: {}\n", busy);
    return kExitUsage;
  }
  std::string err;
  if (!write_reports(out, run, results, &err)) {
    fmt::print(stderr, "hkcheck merge: cannot write the reports: {}\n", err);
    return kExitUsage;
  }
  const Counts c = count_results(results);
  fmt::print(stderr, "hkcheck merge: {} parts: {}\nhkcheck merge: wrote {}/test_results.json and .md\n", part_paths.size(), counts_line(c), out);
  if (!run.manifest_errors.empty()) return kExitUsage;
  return verdicts_exit_code(c);
}

}  // namespace hk
