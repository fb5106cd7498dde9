#include <fmt/format.h>

#include "report.h"

namespace hk {
namespace {

// Table cells must stay on one line and must not end the cell early.
std::string cell(std::string s, size_t max = 160) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

std::string index_str(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string max_diff(const CaseResult& r) {
  if (r.outputs.empty()) return "—";
  double d = 0;
  for (const auto& o : r.outputs) d = std::max(d, o.max_abs_diff);
  return fmt::format("{:.6g}", d);
}

// A short line saying what went wrong, for the table.
std::string summary_note(const CaseResult& r) {
  if (r.status == Status::SKIP && r.limit)
    return fmt::format("{}: {} requested {}, limit {} (over by {})", r.reason, r.limit->what, r.limit->requested,
                       r.limit->limit, r.limit->requested - r.limit->limit);
  if (r.status == Status::FAIL) {
    std::string s;
    for (const auto& o : r.outputs) {
      if (o.pass) continue;
      s += fmt::format("{}{}: {} of {} outside tolerance", s.empty() ? "" : "; ", o.name, o.mismatches, o.numel);
      if (o.unwritten) s += fmt::format(", {} unwritten", o.unwritten);
      if (o.nonfinite) s += fmt::format(", {} NaN/Inf", o.nonfinite);
      if (o.beyond_hard_ulps) s += fmt::format(", {} beyond {:g} ulps", o.beyond_hard_ulps, o.tolerance.hard_ulps);
      if (o.dequant && !o.dequant->pass) s += fmt::format(", dequant rel L2 {:.3g} > {:g}", o.dequant->rel_l2, o.dequant->max_rel_l2);
    }
    return s;
  }
  if (r.status == Status::PASS) {
    std::string s;
    for (const auto& o : r.outputs)
      if (o.max_ulps > 0 && o.dtype != "f32" && o.dtype != "f64")
        s += fmt::format("{}{} {:.3g} ulp", s.empty() ? "" : ", ", o.name, o.max_ulps);
    return s;
  }
  const size_t nl = r.message.find('\n');
  return r.message.substr(0, nl);
}

}  // namespace

std::string results_markdown(const RunInfo& run, const std::vector<CaseResult>& results) {
  const Counts c = count_results(results);
  std::string md = "# hkcheck results\n\n";
  const std::string device = run.device.is_null() ? "no device" : run.device.value("name", "?") + " (" + run.device.value("arch", "?") + ")";
  md += fmt::format("- device: {}, backend {}\n", device, run.backend);
  md += fmt::format("- hkcheck {} ({}), host {}, started {}, seed {}, wall {:.1f} s\n", run.hkcheck_version, run.git_commit,
                    run.host, run.started_at, run.seed, run.wall_s);
  md += fmt::format("\n**{} cases: {} PASS, {} FAIL, {} CRASH, {} TIMEOUT, {} SKIP, {} COMPILE_ERROR, {} ERROR**\n", c.total,
                    c.pass, c.fail, c.crash, c.timeout, c.skip, c.compile_error, c.error);
  if (!run.manifest_errors.empty()) {
    md += "\n## Manifest errors\n\n";
    for (const auto& e : run.manifest_errors) md += "- " + cell(e, 1000) + "\n";
  }
  md += "\n| Kernel | Case | Status | Max diff | Notes |\n| --- | --- | --- | --- | --- |\n";
  for (const CaseResult& r : results)
    md += fmt::format("| {} | {} | {} | {} | {} |\n", cell(r.kernel), cell(r.case_name), status_name(r.status), max_diff(r),
                      cell(summary_note(r)));
  bool header = false;
  for (const CaseResult& r : results) {
    if (r.status == Status::PASS) continue;
    if (!header) md += "\n## Cases that did not pass\n";
    header = true;
    md += fmt::format("\n### {} / {} — {}{}\n\n", r.kernel, r.case_name, status_name(r.status),
                      r.reason.empty() ? "" : " (" + r.reason + ")");
    if (!r.params.empty()) {
      std::string p;
      for (const auto& [k, v] : r.params) p += (p.empty() ? "" : ", ") + k + "=" + param_to_string(v);
      md += "- params: " + p + "\n";
    }
    if (!r.launch.is_null() && !r.launch.empty()) md += "- launch: " + r.launch.dump() + "\n";
    for (const auto& o : r.outputs) {
      md += fmt::format(
          "- output `{}` ({} {}): {} — max abs {:.6g}, max rel {:.6g}, rel L2 {:.3g}, worst {:.3g} ulp; {} of {} outside "
          "tolerance ({:.4g}%), {} unwritten, {} NaN/Inf; tolerance atol {:g} rtol {:g} ulps {:g}\n",
          o.name, o.dtype, index_str(o.shape), o.pass ? "ok" : "FAIL", o.max_abs_diff, o.max_rel_diff, o.rel_l2, o.max_ulps,
          o.mismatches, o.numel, 100.0 * o.mismatch_fraction, o.unwritten, o.nonfinite, o.tolerance.atol, o.tolerance.rtol,
          o.tolerance.ulps);
      if (o.tolerance.max_mismatch_fraction > 0)
        md += fmt::format("  - allowance: up to {:g}% of elements outside tolerance{}\n", 100.0 * o.tolerance.max_mismatch_fraction,
                          o.tolerance.hard_ulps > 0
                              ? fmt::format(", none beyond {:g} ulps ({} were)", o.tolerance.hard_ulps, o.beyond_hard_ulps)
                              : std::string());
      if (o.dequant)
        md += fmt::format("  - dequant: ||{} * {} - {}|| / ||{}|| = {:.4g} (max {:g}, blocks of {}): {}\n", o.name,
                          o.dequant->scale, o.dequant->against, o.dequant->against, o.dequant->rel_l2, o.dequant->max_rel_l2,
                          o.dequant->block, o.dequant->pass ? "ok" : "FAIL");
      if (o.first_mismatch)
        md += fmt::format("  - first mismatch at {}: got {:.8g}, expected {:.8g}\n", index_str(o.first_mismatch->index),
                          o.first_mismatch->got, o.first_mismatch->expected);
    }
    if (!r.message.empty()) md += "\n```\n" + r.message + (r.message.back() == '\n' ? "" : "\n") + "```\n";
    for (const auto& n : r.notes) md += "- note: " + cell(n, 2000) + "\n";
  }
  return md;
}

}  // namespace hk
