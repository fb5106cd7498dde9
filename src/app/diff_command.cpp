#include "app/diff_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>


#include "model/exit_codes.h"
#include "util/file_util.h"
#include "report/results_diff.h"
#include "contracts/results_file.h"

namespace hk {

int diff_command(const DiffOptions& o) {
  ResultsDocument docs[2];
  for (int i = 0; i < 2; ++i) {
    try {
      docs[i] = read_results_file(i == 0 ? o.a : o.b).doc;
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "hkcheck diff: {}\n", e.what());
      return kExitUsage;
    }
  }
  ResultsDiff d;
  try {
    d = diff_results(docs[0], docs[1]);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hkcheck diff: {} (A is {}, B is {})\n", e.what(), o.a, o.b);
    return kExitUsage;
  }
  const std::string md = diff_markdown(docs[0], docs[1], d);
  fmt::print("{}", md);
  std::string err;
  if ((!o.md_path.empty() && !write_file_atomic(o.md_path, md, &err)) ||
      (!o.json_path.empty() && !write_file_atomic(o.json_path, diff_json(docs[0], docs[1], d).dump(2) + "\n", &err))) {
    fmt::print(stderr, "hkcheck diff: cannot write: {}\n", err);
    return kExitUsage;
  }
  if (d.compared == 0) {
    fmt::print(stderr, "hkcheck diff: the two runs have no case in common: nothing was compared\n");
    return kExitNothingChecked;
  }
  return fails_on(d, o.fail_on) ? kExitFailed : kExitOk;
}

int diff_main(int argc, char** argv) {
  CLI::App app{"hkcheck diff A B: compares two runs (result folders or test_results.json files) case by case and prints a\n"
               "markdown report: regressions, fixes, device differences, other changes, metric changes, cases run on one side\n"
               "only. Exit code: 0 nothing to fail on, 1 --fail-on met, 2 usage error, 3 no case in common.",
               "hkcheck diff"};
  DiffOptions o;
  app.add_option("a", o.a, "The first run (the baseline)")->required();
  app.add_option("b", o.b, "The second run")->required();
  app.add_option("--fail-on", o.fail_on,
                 "Exit 1 on: regression (a case that passed in A and not in B), change (any verdict change), never. Both regression "
                 "and change also fail when B lost something: interrupted, a manifest error A has not (a kernel left out), a NOT_RUN "
                 "case, a case of A missing from a run of every case")
      ->capture_default_str()
      ->check(CLI::IsMember({"regression", "change", "never"}));
  app.add_option("--md", o.md_path, "Also write the markdown report to this file (for a pull-request comment)");
  app.add_option("--json", o.json_path, "Also write the diff as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return diff_command(o);
}

}  // namespace hk
