// The two forms of a diff (results_diff.h): markdown for a pull-request comment, JSON for tools.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "report/markdown_budget.h"
#include "util/report_text.h"
#include "report/results_diff.h"

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
  // The same budget as a run's markdown: thousands of regressions are summed up, not listed.
  MarkdownBudget md(kDiffMarkdownBudget);
  md.add("# hkcheck diff\n\n| run | device | arch | backend | driver | hkcheck | seed | command |\n"
         "| --- | --- | --- | --- | --- | --- | --- | --- |\n" +
         header_line("A", run_header(a)) + header_line("B", run_header(b)));
  md.add(fmt::format("\n**{} cases compared: {} regression(s), {} fix(es), {} device difference(s), {} other change(s), {} metric "
                     "change(s); {} case(s) not run in both.**\n",
                     d.compared, d.count(ChangeKind::regression), d.count(ChangeKind::fix), d.count(ChangeKind::device),
                     d.count(ChangeKind::other), d.metrics.size(), d.missing.size()));
  const auto more = [](const char* what) {
    return [what](size_t n) { return fmt::format("\n{} more {}: `hkcheck diff --json FILE` lists every one.\n", n, what); };
  };
  std::vector<std::string> lost;
  for (const std::string& l : d.lost) lost.push_back("- " + md_inline(l, 1000) + "\n");
  md.add_list(fmt::format("\n## Lost in B ({})\n\n", d.lost.size()), lost, more("line(s) of what B lost"), kDiffMarkdownBudget / 8);
  for (ChangeKind k : {ChangeKind::regression, ChangeKind::fix, ChangeKind::device, ChangeKind::other}) {
    std::vector<std::string> rows;
    for (const VerdictChange& c : d.changed)
      if (c.kind == k) rows.push_back(fmt::format("| {} | {} | {} | {} |\n", md_inline(c.kernel, 160), md_inline(c.case_name, 160),
                                                  md_inline(c.before, 160), md_inline(c.after, 160)));
    // Regressions first and with the most room: they are what fails a pull request.
    md.add_list(fmt::format("\n## {} ({})\n\n| Kernel | Case | A | B |\n| --- | --- | --- | --- |\n", change_kind_name(k), rows.size()), rows,
                more("case(s) of this kind"), k == ChangeKind::regression ? kDiffMarkdownBudget / 2 : kDiffMarkdownBudget / 8);
  }
  std::vector<std::string> metrics;
  for (const MetricChange& m : d.metrics)
    metrics.push_back(fmt::format("| {} | {} | {} | {:.4g} | {:.4g} |\n", md_inline(m.kernel, 160), md_inline(m.case_name, 160),
                                  md_inline(m.what, 160), m.before, m.after));
  md.add_list("\n## Metric changes\n\n| Kernel | Case | What | A | B |\n| --- | --- | --- | --- | --- |\n", metrics,
              more("metric change(s)"), kDiffMarkdownBudget / 8);
  if (!d.missing.empty()) {
    // Per kernel: a one-kernel run against --all would otherwise list hundreds of lines.
    std::map<std::string, std::map<std::string, int>> per_kernel;
    for (const VerdictChange& m : d.missing)
      ++per_kernel[m.kernel][m.before == "absent" ? "only in B" : m.after == "absent" ? "only in A" : "not run in both"];
    std::vector<std::string> rows;
    for (const auto& [k, counts] : per_kernel) {
      std::string s;
      for (const auto& [what, n] : counts) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, what);
      rows.push_back(fmt::format("| {} | {} |\n", md_inline(k, 160), s));
    }
    md.add_list("\n## Not run in both\n\n| Kernel | Cases |\n| --- | --- |\n", rows, more("kernel(s) with cases not run in both"),
                kDiffMarkdownBudget / 8);
  }
  return md.text();
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
