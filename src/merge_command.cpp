#include "merge_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "case_filter.h"
#include "exit_codes.h"
#include "report.h"
#include "results_file.h"

namespace hk {

namespace {

using nlohmann::json;

json read_results(const std::string& given) {
  ResultsFile f = read_results_file(given);
  if (!f.doc.contains("run")) throw std::runtime_error(f.path + ": not a results file: no \"run\"");
  return std::move(f.doc);
}

// What must be the same in every part: a merge of two devices or two seeds is not one run.
std::string identity(const json& run) {
  const json dev = run.value("device", json());
  return fmt::format("{} on {} ({}), seed {} {}, tier {}", run.value("backend", ""), dev.is_object() ? dev.value("name", "") : "no device",
                     dev.is_object() ? dev.value("arch", "") : "", run.value("seed", json(0)).dump(), run.value("seeds", json::array()).dump(),
                     run.value("tier", ""));
}

RunInfo run_of(const json& run) {
  RunInfo r;
  r.hkcheck_version = run.value("hkcheck_version", "");
  r.git_commit = run.value("git_commit", "");
  r.host = run.value("host", "");
  r.started_at = run.value("started_at", "");
  r.seed = run.value("seed", uint64_t{0});
  r.seeds = run.value("seeds", std::vector<uint64_t>{});
  r.backend = run.value("backend", "");
  r.tier = run.value("tier", "all");
  r.device = run.value("device", json());
  r.command = run.value("command", std::vector<std::string>{});
  r.sanitizer = run.value("sanitizer", json());
  return r;
}

}  // namespace

int merge_main(int argc, char** argv) {
  CLI::App app{"hkcheck merge OUT PART...: the results of the parts of one run (--shard K/N, on one kind of device with one\n"
               "seed) written as one run into OUT: test_results.json and .md. A case found in two parts is an error.",
               "hkcheck merge"};
  std::string out;
  std::vector<std::string> parts;
  app.add_option("out", out, "Folder for the merged results")->required();
  app.add_option("parts", parts, "Result folders or test_results.json files of the parts")->required()->expected(1, -1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  std::vector<CaseResult> results;
  std::set<std::string> seen;
  RunInfo run;
  try {
    std::string first;
    for (const std::string& p : parts) {
      const json doc = read_results(p);
      if (first.empty()) {
        first = identity(doc["run"]);
        run = run_of(doc["run"]);
      } else if (identity(doc["run"]) != first) {
        throw std::runtime_error(fmt::format("{} is {}, the first part {}: not parts of one run", p, identity(doc["run"]), first));
      }
      run.wall_s = std::max(run.wall_s, doc["run"].value("wall_s", 0.0));  // parts run side by side
      for (const std::string& e : doc["run"].value("manifest_errors", std::vector<std::string>{}))
        if (std::find(run.manifest_errors.begin(), run.manifest_errors.end(), e) == run.manifest_errors.end()) run.manifest_errors.push_back(e);
      const json logs = doc.value("compile_logs", json::object());
      for (json c : doc["cases"]) {
        // Each part keeps its compile logs once, by id: the merged cases take their text back.
        if (c.contains("compile_log") && logs.contains(c["compile_log"].get<std::string>())) c["compile_log"] = logs[c["compile_log"].get<std::string>()];
        CaseResult r;
        try {
          r = c.get<CaseResult>();
        } catch (const json::exception& e) {
          throw std::runtime_error(fmt::format("{}: a case is not a result: {}", p, e.what()));
        }
        if (!seen.insert(case_id(r.kernel, r.case_name)).second)
          throw std::runtime_error(fmt::format("{}: case {} is in an earlier part too", p, case_id(r.kernel, r.case_name)));
        results.push_back(std::move(r));
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "hkcheck merge: {}\n", e.what());
    return kExitUsage;
  }
  run.command.assign(argv - 1, argv + argc);  // main passed argv + 1: the whole command, "hkcheck merge ..."
  std::string err;
  if (!write_reports(out, run, results, &err)) {
    fmt::print(stderr, "hkcheck merge: cannot write the reports: {}\n", err);
    return kExitUsage;
  }
  const Counts c = count_results(results);
  fmt::print(stderr, "hkcheck merge: {} parts: {}\nhkcheck merge: wrote {}/test_results.json and .md\n", parts.size(), counts_line(c), out);
  if (!run.manifest_errors.empty()) return kExitUsage;
  return verdicts_exit_code(c);
}

}  // namespace hk
