#include "report/results_owner.h"

#include <filesystem>
#include <fmt/format.h>

#include "report/report.h"
#include "contracts/results_file.h"

namespace hk {

namespace {

std::string describe(const ResultsOwner& o) {
  if (o.backend == "none") return "no device";
  return o.device.empty() || o.device == o.backend ? o.backend : fmt::format("{} ({})", o.device, o.backend);
}

}  // namespace

std::optional<ResultsOwner> results_owner(const std::string& out_dir) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(out_dir) / "test_results.json", ec)) return std::nullopt;
  try {
    const ResultsFile f = read_results_file(out_dir);
    ResultsOwner o = owner_of(f.doc.run);
    o.checked = count_results(f.doc.cases).judged() > 0;
    return o;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

ResultsOwner owner_of(const RunInfo& run) {
  ResultsOwner o;
  o.backend = run.device ? run.device->backend : "none";
  // Compile-only runs of other targets share one folder by default (results/compile-only).
  if (run.device && o.backend != "compile-only") o.device = run.device->name;
  o.started_at = run.started_at;
  return o;
}

std::string replace_problem(const std::string& out_dir, const std::optional<ResultsOwner>& was, const ResultsOwner& now) {
  if (!was || !was->checked || (was->backend == now.backend && was->device == now.device)) return "";
  return fmt::format("{} holds the results of a run on {} ({}); this run is on {} and would replace them. Give another --out, "
                     "or --force to replace them",
                     out_dir, describe(*was), was->started_at.empty() ? "undated" : "started " + was->started_at, describe(now));
}

std::string nothing_checked_folder(const std::string& out_dir) { return (std::filesystem::path(out_dir) / "nothing-checked").string(); }

}  // namespace hk
