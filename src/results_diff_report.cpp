// The two forms of a diff (results_diff.h): markdown for a pull-request comment, JSON for tools.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "report_text.h"
#include "results_diff.h"

namespace hk {

namespace {

using nlohmann::json;

// device, arch, backend, driver, hkcheck commit, seed(s), options: enough to tell two runs apart.
struct RunHeader {
  std::string device, arch, backend, driver, hkcheck, seed;
  std::vector<std::string> command;
  int schema_version = 0;
};

RunHeader run_header(const ResultsDocument& doc) {
  const RunInfo& run = doc.run;
  const std::optional<DeviceInfo>& dev = run.device;
  return {dev ? dev->name : "no device",
          dev ? dev->arch : "",
          run.spec.backend,
          dev ? dev->driver_version + (dev->runtime_version.empty() ? "" : ", " + dev->runtime_version) : "",
          run.hkcheck_version + " (" + run.git_commit + ")",
          run.spec.seeds.empty() ? std::to_string(run.spec.seed) : json(run.spec.seeds).dump(),
          run.command,
          doc.schema_version};
}

json header_json(const RunHeader& h) {
  return {{"device", h.device}, {"arch", h.arch},       {"backend", h.backend}, {"driver", h.driver},
          {"hkcheck", h.hkcheck}, {"seed", h.seed}, {"command", h.command}, {"schema_version", h.schema_version}};
}

std::string header_line(const char* which, const RunHeader& h) {
  std::string cmd;
  for (const std::string& a : h.command) cmd += (cmd.empty() ? "" : " ") + a;
  const auto at = [](const std::string& text) { return md_inline(text, 400); };
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", which, at(h.device), at(h.arch), at(h.backend), at(h.driver), at(h.hkcheck),
                     at(h.seed), md_code_span(cmd.substr(0, 2000), true));
}

}  // namespace

std::string diff_markdown(const ResultsDocument& a, const ResultsDocument& b, const ResultsDiff& d) {
  std::string md = "# hkcheck diff\n\n| run | device | arch | backend | driver | hkcheck | seed | command |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  md += header_line("A", run_header(a)) + header_line("B", run_header(b));
  md += fmt::format("\n**{} cases compared: {} regression(s), {} fix(es), {} device difference(s), {} other change(s), {} metric "
                    "change(s); {} case(s) not run in both.**\n",
                    d.compared, d.count(ChangeKind::regression), d.count(ChangeKind::fix), d.count(ChangeKind::device),
                    d.count(ChangeKind::other), d.metrics.size(), d.missing.size());
  if (!d.lost.empty()) {
    md += fmt::format("\n## Lost in B ({})\n\n", d.lost.size());
    for (const std::string& l : d.lost) md += "- " + md_inline(l, 1000) + "\n";
  }
  for (ChangeKind k : {ChangeKind::regression, ChangeKind::fix, ChangeKind::device, ChangeKind::other}) {
    if (!d.count(k)) continue;
    md += fmt::format("\n## {} ({})\n\n| Kernel | Case | A | B |\n| --- | --- | --- | --- |\n", change_kind_name(k), d.count(k));
    for (const VerdictChange& c : d.changed)
      if (c.kind == k) md += fmt::format("| {} | {} | {} | {} |\n", md_inline(c.kernel), md_inline(c.case_name), md_inline(c.before), md_inline(c.after));
  }
  if (!d.metrics.empty()) {
    md += "\n## Metric changes\n\n| Kernel | Case | What | A | B |\n| --- | --- | --- | --- | --- |\n";
    constexpr size_t kShown = 100;  // a comment has room for the first ones; --json has all
    for (size_t i = 0; i < std::min(kShown, d.metrics.size()); ++i) {
      const MetricChange& m = d.metrics[i];
      md += fmt::format("| {} | {} | {} | {:.4g} | {:.4g} |\n", md_inline(m.kernel), md_inline(m.case_name), md_inline(m.what), m.before, m.after);
    }
    if (d.metrics.size() > kShown) md += fmt::format("\n{} more metric change(s): see --json.\n", d.metrics.size() - kShown);
  }
  if (!d.missing.empty()) {
    // Per kernel: a one-kernel run against --all would otherwise list hundreds of lines.
    std::map<std::string, std::map<std::string, int>> per_kernel;
    for (const VerdictChange& m : d.missing)
      ++per_kernel[m.kernel][m.before == "absent" ? "only in B" : m.after == "absent" ? "only in A" : "not run in both"];
    md += "\n## Not run in both\n\n| Kernel | Cases |\n| --- | --- |\n";
    for (const auto& [k, counts] : per_kernel) {
      std::string s;
      for (const auto& [what, n] : counts) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, what);
      md += fmt::format("| {} | {} |\n", md_inline(k), s);
    }
  }
  return md;
}

json diff_json(const ResultsDocument& a, const ResultsDocument& b, const ResultsDiff& d) {
  json changed = json::array(), metrics = json::array(), missing = json::array();
  for (const VerdictChange& c : d.changed)
    changed.push_back({{"kernel", c.kernel}, {"case", c.case_name}, {"a", c.before}, {"b", c.after}, {"kind", change_kind_name(c.kind)}});
  for (const MetricChange& m : d.metrics)
    metrics.push_back({{"kernel", m.kernel}, {"case", m.case_name}, {"what", m.what}, {"a", m.before}, {"b", m.after}});
  for (const VerdictChange& m : d.missing) missing.push_back({{"kernel", m.kernel}, {"case", m.case_name}, {"a", m.before}, {"b", m.after}});
  return {{"schema", "hkcheck-diff"}, {"schema_version", 1}, {"a", header_json(run_header(a))}, {"b", header_json(run_header(b))}, {"compared", d.compared},
          {"regressions", d.count(ChangeKind::regression)}, {"changed", changed}, {"metrics", metrics}, {"not_run_in_both", missing},
          {"lost", d.lost}};
}

}  // namespace hk
