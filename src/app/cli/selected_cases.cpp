#include "app/cli/selected_cases.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include <set>

#include "select/case_filter.h"
#include "select/keyword_expr.h"
#include "report/last_run.h"
#include "util/report_text.h"
#include "select/seed_sweep.h"
#include "select/shard.h"

namespace hk {
namespace {

// kernel/case patterns select their kernels and filter their cases, like -k; a kernel pattern
// beside them keeps all its cases (`rmsnorm 'topk/*N33*'` is every rmsnorm case and one topk's).
void split_patterns(const std::vector<std::string>& patterns, std::vector<std::string>& kernels, std::vector<std::string>& ids) {
  const bool any_case_pattern =
      std::any_of(patterns.begin(), patterns.end(), [](const std::string& p) { return p.find('/') != std::string::npos; });
  for (const std::string& p : patterns) {
    kernels.push_back(p.substr(0, p.find('/')));
    if (p.find('/') != std::string::npos) ids.push_back(p);
    else if (any_case_pattern) ids.push_back(p + "/*");
  }
}

bool apply_filters(const SelectionSettings& o, SelectedCases& out) {
  std::vector<std::string> kernel_patterns, id_patterns;
  split_patterns(o.patterns, kernel_patterns, id_patterns);
  CaseFilter filter{id_patterns, o.case_patterns, o.excludes, std::nullopt};
  for (const std::string& text : o.case_patterns) {
    try {
      KeywordExpr{text};
    } catch (const std::invalid_argument& e) {
      fmt::print(stderr, "hkcheck: {}\n", e.what());
      return false;
    }
  }
  try {
    if (!o.last_failed.empty()) filter.only = ids_not_passed(o.last_failed);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "hkcheck: --last-failed: {}\n", e.what());
    return false;
  }
  out.last_run_green = filter.only && filter.only->empty();
  std::vector<KernelSpec>& kernels = out.loaded.kernels;
  for (KernelSpec& k : kernels) filter_cases(k, filter);
  out.selection = select_kernels(kernels, kernel_patterns, out.loaded.failed_kernels);
  if (!o.shard.empty()) {
    try {
      const ShardSpec shard = parse_shard(o.shard);
      const auto durations = o.shard_durations.empty() ? std::map<std::string, double>{} : recorded_durations(o.shard_durations);
      filter.only = shard_ids(out.selection.kernels, shard, durations);
    } catch (const std::exception& e) {
      fmt::print(stderr, "hkcheck: --shard: {}\n", e.what());
      return false;
    }
    for (KernelSpec& k : kernels) filter_cases(k, CaseFilter{{}, {}, {}, filter.only});
  }
  if (filter.active()) std::erase_if(out.selection.kernels, [](const KernelSpec* k) { return k->cases.empty(); });
  for (const auto& e : out.selection.errors) fmt::print(stderr, "hkcheck: {}\n", e);
  // Nothing selected, by names or by filters, is the one "nothing selected" outcome (exit 3);
  // a name that matches nothing beside others that match is a usage error.
  if (out.selection.kernels.empty()) out.selection.errors.clear();
  return out.selection.errors.empty();
}

// A resumed run's cases, by id, in the manifests' order; every one must still be defined.
bool select_planned(const std::vector<std::string>& planned, SelectedCases& out) {
  std::set<std::string> ids(planned.begin(), planned.end());
  std::vector<KernelSpec>& kernels = out.loaded.kernels;
  for (KernelSpec& k : kernels) filter_cases(k, CaseFilter{{}, {}, {}, ids});
  out.selection = select_kernels(kernels, {});
  std::erase_if(out.selection.kernels, [](const KernelSpec* k) { return k->cases.empty(); });
  for (const KernelSpec* k : out.selection.kernels)
    for (const CaseSpec& c : k->cases) ids.erase(case_id(k->name, c.name));
  if (ids.empty()) return true;
  fmt::print(stderr, "hkcheck: --resume: {} case(s) of the run are no longer in the manifests (a manifest error above, or the case was "
             "removed), e.g. {}; fix the manifests or start a new run\n", ids.size(), *ids.begin());
  return false;
}

}  // namespace

size_t SelectedCases::case_count() const {
  size_t n = 0;
  for (const KernelSpec* k : selection.kernels) n += k->cases.size();
  return n;
}

std::optional<SelectedCases> select_cases(Settings& s, const std::vector<std::string>* planned) {
  SelectedCases out;
  out.project = find_project(s.root_dir, s.manifest_dir, s.self_exe);
  s.manifest_dir = out.project.manifests;
  if (s.select.last_failed == kLastRunSentinel) {
    try {
      s.select.last_failed = last_run_results(project_folder(out.project));
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "hkcheck: --last-failed: {}\n", e.what());
      return std::nullopt;
    }
  }
  if (!std::filesystem::is_directory(s.manifest_dir)) {
    fmt::print(stderr, "hkcheck: manifest folder '{}' not found (run in a project folder that holds manifests/, or pass --root or --manifests)\n",
               s.manifest_dir);
    return std::nullopt;
  }
  std::vector<AxisOverride> axes;
  try {
    axes = parse_axis_overrides(s.axes);
    // Only the kernels named on the command line take them (every kernel when none is named).
    std::vector<std::string> kernel_patterns, ids;
    split_patterns(s.select.patterns, kernel_patterns, ids);
    for (AxisOverride& a : axes) a.kernels = kernel_patterns;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "hkcheck: {}\n", e.what());
    return std::nullopt;
  }
  // A broken manifest is reported and the rest still run.
  out.loaded = load_manifests(s.manifest_dir, axes, s.strict);
  for (const AxisOverride& a : axes)
    if (!out.loaded.axes_applied.count(a.name)) {
      fmt::print(stderr, "hkcheck: -a {}: no sweep of the selected kernels in {} has a parameter '{}'\n", a.name, s.manifest_dir, a.name);
      return std::nullopt;
    }
  refuse_sources_outside(out.loaded, source_boundary(out.project), s.select.allow_outside_root);
  out.references = find_references(out.loaded, out.project);
  for (const auto& e : out.loaded.errors) fmt::print(stderr, "hkcheck: manifest error: {}\n", terminal_line(e));  // names are the manifest's text
  for (const auto& w : out.loaded.warnings) fmt::print(stderr, "hkcheck: manifest warning: {}\n", terminal_line(w));
  try {
    if (!s.seeds.empty()) out.seeds = parse_seed_list(s.seeds);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "hkcheck: --seeds: {}\n", e.what());
    return std::nullopt;
  }
  if (!out.seeds.empty())
    for (KernelSpec& k : out.loaded.kernels) sweep_seeds(k, out.seeds);
  if (!(planned ? select_planned(*planned, out) : apply_filters(s.select, out))) return std::nullopt;
  return out;
}

}  // namespace hk
