#include "diff_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "results_diff.h"

namespace hk {

namespace fs = std::filesystem;

int diff_command(const std::string& a, const std::string& b) {
  nlohmann::json ja, jb;
  for (auto [given, doc] : {std::pair{&a, &ja}, std::pair{&b, &jb}}) {
    // A results folder stands for the test_results.json in it.
    const std::string file = fs::is_directory(*given) ? (fs::path(*given) / "test_results.json").string() : *given;
    const std::string* path = &file;
    try {
      std::ifstream in(*path);
      if (!in) throw std::runtime_error("no such file");
      *doc = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      fmt::print(stderr, "hkcheck: --diff: cannot read {}: {}\n", *path, e.what());
      return kExitUsage;
    }
  }
  ResultsDiff d;
  try {
    d = diff_results(ja, jb);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hkcheck: --diff: {}\n", e.what());
    return kExitUsage;
  }
  for (const auto& c : d.changed) fmt::print("changed  {:<28} {:<40} {} -> {}\n", c.kernel, c.case_name, c.before, c.after);
  for (const auto& c : d.missing) fmt::print("not compared  {:<23} {:<40} {} | {}\n", c.kernel, c.case_name, c.before, c.after);
  fmt::print("{} cases compared: {} changed verdict, {} not run in both\n", d.compared, d.changed.size(), d.missing.size());
  if (!d.changed.empty()) return kExitFailed;
  if (d.compared == 0) {
    fmt::print(stderr, "hkcheck: --diff: the two runs have no case in common: nothing was compared\n");
    return kExitNothingChecked;
  }
  return kExitOk;
}

}  // namespace hk
