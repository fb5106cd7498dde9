#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>

#include "report/report.h"
#include "report/markdown_budget.h"
#include "util/report_text.h"
#include "select/seed_sweep.h"
#include "model/status.h"

namespace hk {
namespace {

// Table cells (and any other text on one line) stay on their line and in their cell, and carry
// no markup of the kernel's: report_text.h.
std::string cell(const std::string& s, size_t max = 160) { return md_inline(s, max); }

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

// A long text (a message, a compiler log) in a code block, cut to its first lines: a comment has
// room for the start of many, and the JSON has every one whole.
std::string excerpt_block(const std::string& text, const std::string& what, size_t max_lines = 40, size_t max_bytes = 4000) {
  const TextExcerpt e = text_excerpt(text, max_lines, max_bytes);
  std::string md = md_code_block(e.text);
  if (e.lines_left_out) md += fmt::format("\n{} more line(s) of {}: see test_results.json.\n", e.lines_left_out, what);
  return md;
}

}  // namespace

namespace {

// Got / expected around the first mismatch, wrong cells in bold.
std::string window_table(const OutputMetrics& o) {
  const MismatchWindow& w = *o.window;
  const size_t nd = w.origin.size();
  std::string where = "[";
  for (size_t d = 0; d < nd; ++d) {
    const bool row = nd >= 2 && d == nd - 2, col = d == nd - 1;
    const int64_t len = row ? w.rows : col ? w.cols : 1;
    where += (d ? ", " : "") + (len > 1 ? fmt::format("{}..{}", w.origin[d], w.origin[d] + len - 1) : std::to_string(w.origin[d]));
  }
  where += "]";
  std::string md = fmt::format("\n  Values of {} at {} (got / expected; **wrong**):\n\n  | {} |", md_code_span(o.name), where, nd >= 2 ? "row \\ col" : "col");
  const int64_t c0 = nd ? w.origin[nd - 1] : 0, r0 = nd >= 2 ? w.origin[nd - 2] : 0;
  for (int64_t c = 0; c < w.cols; ++c) md += fmt::format(" {} |", c0 + c);
  md += "\n  | --- |";
  for (int64_t c = 0; c < w.cols; ++c) md += " --- |";
  md += "\n";
  for (int64_t r = 0; r < w.rows; ++r) {
    md += nd >= 2 ? fmt::format("  | {} |", r0 + r) : std::string("  | |");
    for (int64_t c = 0; c < w.cols; ++c) {
      const std::string v = fmt::format("{:.5g} / {:.5g}", w.got[r][c], w.expected[r][c]);
      md += w.wrong[r][c] ? " **" + v + "** |" : " " + v + " |";
    }
    md += "\n";
  }
  return md + "\n";
}

std::string slices_text(const OutputMetrics& o) {
  std::string md;
  for (const SliceSummary& s : o.slices) {
    std::string what;
    if (s.wrong_count == s.size) what = fmt::format("wrong at all {}", s.size);
    else what = fmt::format("wrong at {}; right at {}", s.wrong, s.right);
    md += fmt::format("    - dim {} (size {}): {}\n", s.dim, s.size, what);
  }
  return md.empty() ? md : fmt::format("  - slices of {} holding a mismatch:\n", md_code_span(o.name)) + md;
}

std::string sanitizer_text(const CaseSanitizer& san) {
  std::string md;
  for (const SanitizerTool& t : san.tools) {
    md += fmt::format("- compute-sanitizer {}: {}\n", cell(t.tool),
                      cell(t.summary.empty() ? fmt::format("no summary ({})", status_name(t.status)) : t.summary, 2000));
    if (!t.first_error.empty()) md += "\n" + excerpt_block(t.first_error, "the sanitizer's report");
  }
  return md;
}

// Each distinct compiler log once, however many cases it failed (a file is compiled once for all
// its entries, so one broken kernel would otherwise repeat its log for every case), with the
// kernels it failed and its first lines: the whole log is in test_results.json.
std::vector<std::string> compile_log_pieces(const std::vector<CaseResult>& results) {
  struct Log {
    const std::string* text;
    std::vector<std::string> kernels;
  };
  std::map<std::string, Log> logs;
  for (const CaseResult& r : results) {
    if (r.compile_log.empty()) continue;
    Log& log = logs.emplace(compile_log_id(r.compile_log), Log{&r.compile_log, {}}).first->second;
    if (std::find(log.kernels.begin(), log.kernels.end(), r.kernel) == log.kernels.end()) log.kernels.push_back(r.kernel);
  }
  std::vector<std::string> pieces;
  for (const auto& [id, log] : logs) {
    std::string kernels;
    for (size_t i = 0; i < std::min<size_t>(log.kernels.size(), 8); ++i) kernels += (i ? ", " : "") + md_code_span(log.kernels[i]);
    if (log.kernels.size() > 8) kernels += fmt::format(" and {} more", log.kernels.size() - 8);
    const TextExcerpt e = text_excerpt(*log.text, 30, 3000);
    std::string md = fmt::format("\n### {}\n\nFailed {}.\n\n{}", id, kernels, md_code_block(e.text));
    if (e.lines_left_out) md += fmt::format("\n{} more line(s): test_results.json, `compile_logs.{}`.\n", e.lines_left_out, id);
    pieces.push_back(md);
  }
  return pieces;
}

// A case that fails for some seeds only is a different finding from one that always fails (a
// rare input, a race): the sweep's summary names them first.
void add_seed_section(MarkdownBudget& md, const std::vector<CaseResult>& results) {
  const std::vector<SeedSummary> sweeps = summarize_seeds(results);
  if (sweeps.empty()) return;
  std::vector<std::string> some, every;
  int passed = 0;
  for (const SeedSummary& s : sweeps) {
    if (s.not_passed.empty()) {
      ++passed;
      continue;
    }
    std::string seeds;
    for (const auto& [seed, st] : s.not_passed) seeds += fmt::format("{}{} ({})", seeds.empty() ? "" : ", ", seed, status_name(st));
    const bool all = static_cast<int>(s.not_passed.size()) == s.seeds;
    (all ? every : some).push_back(fmt::format("| {} | {} | {} of {} | {} |\n", cell(s.kernel), cell(s.case_name), s.not_passed.size(), s.seeds,
                                               cell(seeds, 400)));
  }
  md.add(fmt::format("\n## Seed sweep\n\n{} case(s) ran with {} seed(s) each: {} passed for every seed.\n", sweeps.size(),
                     sweeps.front().seeds, passed));
  const std::string head = "| Kernel | Case | Seeds not passed | Which |\n| --- | --- | --- | --- |\n";
  const auto more = [](size_t n) { return fmt::format("\n{} more such case(s): see test_results.json.\n", n); };
  md.add_list("\n### Fails for some seeds only\n\n" + head, some, more, kMarkdownBudget / 8);
  md.add_list("\n### Fails for every seed\n\n" + head, every, more, kMarkdownBudget / 8);
}

// One row per kernel: how many of its cases reached each verdict (only the verdicts this run has).
void add_kernel_table(MarkdownBudget& md, const std::vector<CaseResult>& results) {
  std::vector<std::string> kernels;
  std::map<std::string, std::map<Status, int>> counts;
  std::map<Status, int> seen;
  for (const CaseResult& r : results) {
    if (!counts.count(r.kernel)) kernels.push_back(r.kernel);
    ++counts[r.kernel][r.status];
    ++seen[r.status];
  }
  std::string head = "\n## Kernels\n\n| Kernel | Cases |";
  std::string rule = "| --- | --- |";
  for (Status st : every_status())
    if (seen.count(st)) head += fmt::format(" {} |", status_name(st)), rule += " --- |";
  head += "\n" + rule + "\n";
  std::vector<std::string> rows;
  for (const std::string& k : kernels) {
    int total = 0;
    for (const auto& [st, n] : counts[k]) total += n;
    std::string row = fmt::format("| {} | {} |", cell(k), total);
    for (Status st : every_status())
      if (seen.count(st)) row += counts[k].count(st) ? fmt::format(" {} |", counts[k][st]) : std::string(" |");
    rows.push_back(row + "\n");
  }
  md.add_list(head, rows, [](size_t n) { return fmt::format("\n{} more kernel(s): see test_results.json.\n", n); }, kMarkdownBudget / 6);
}

std::string case_row(const CaseResult& r) {
  return fmt::format("| {} | {} | {} | {} | {} |\n", cell(r.kernel), cell(r.case_name), status_name(r.status), max_diff(r),
                     cell(verdict_note(r)));
}

// Everything a reviewer needs about one case that did not pass.
std::string case_details(const CaseResult& r) {
  std::string sec;
  sec += fmt::format("\n### {} / {} — {}{}\n\n", cell(r.kernel, 400), cell(r.case_name, 400), status_name(r.status),
                     r.reason.empty() ? "" : " (" + cell(r.reason) + ")");
  if (!r.params.empty()) {
    std::string p;
    for (const auto& [k, v] : r.params) p += (p.empty() ? "" : ", ") + k + "=" + param_to_string(v);
    sec += "- params: " + cell(p, 2000) + "\n";
  }
  if (!r.launch.is_null() && !r.launch.empty()) sec += "- launch: " + r.launch.dump() + "\n";  // numbers only
  for (const auto& o : r.outputs) {
    sec += fmt::format(
        "- output {} ({} {}): {} — max abs {:.6g}, max rel {:.6g}, rel L2 {:.3g}, worst {:.3g} ulp; {} of {} outside "
        "tolerance ({:.4g}%), {} unwritten, {} NaN/Inf; tolerance atol {:g} rtol {:g} ulps {:g}\n",
        md_code_span(o.name), cell(o.dtype), index_str(o.shape), o.pass ? "ok" : "FAIL", o.max_abs_diff, o.max_rel_diff, o.rel_l2, o.max_ulps,
        o.mismatches, o.numel, 100.0 * o.mismatch_fraction, o.unwritten, o.nonfinite, o.tolerance.atol, o.tolerance.rtol,
        o.tolerance.ulps);
    if (o.tolerance.max_mismatch_fraction > 0)
      sec += fmt::format("  - allowance: up to {:g}% of elements outside tolerance{}\n", 100.0 * o.tolerance.max_mismatch_fraction,
                        o.tolerance.hard_ulps > 0
                            ? fmt::format(", none beyond {:g} ulps ({} were)", o.tolerance.hard_ulps, o.beyond_hard_ulps)
                            : std::string());
    if (o.compare != "elementwise") sec += fmt::format("  - compared by rule '{}'\n", cell(o.compare));
    for (const CheckOutcome& c : o.checks) sec += fmt::format("  - {}: {}: {}\n", cell(c.rule), cell(c.summary, 2000), c.pass ? "ok" : "FAIL");
    if (o.first_mismatch)
      sec += fmt::format("  - first mismatch at {}: got {:.8g}, expected {:.8g}\n", index_str(o.first_mismatch->index),
                        o.first_mismatch->got, o.first_mismatch->expected);
    sec += slices_text(o);
    if (o.window) sec += window_table(o);
  }
  if (!r.repro.empty()) sec += fmt::format("- repro: {} (rerun: {})\n", md_code_span(r.repro + "/"), md_code_span(r.repro + "/rerun.sh"));
  if (r.sanitizer) sec += sanitizer_text(*r.sanitizer);
  if (!r.message.empty()) sec += "\n" + excerpt_block(r.message, "the message");
  if (!r.compile_log.empty()) sec += fmt::format("- compiler log: [{0}](#{0}) under Compile logs\n", compile_log_id(r.compile_log));
  for (const auto& n : r.notes) sec += "- note: " + cell(n, 2000) + "\n";
  return sec;
}

// --time: the slowest timed cases (a comment has room for those; the JSON has every one).
std::string timing_section(const std::vector<CaseResult>& results) {
  std::vector<const CaseResult*> timed;
  for (const CaseResult& r : results)
    if (r.timing) timed.push_back(&r);
  if (timed.empty()) return "";
  std::stable_sort(timed.begin(), timed.end(), [](const CaseResult* a, const CaseResult* b) { return a->timing->median_ms > b->timing->median_ms; });
  constexpr size_t kShown = 40;
  std::string md = fmt::format("\n## Kernel times\n\n{} case(s) timed, {} launches each after two warm-up ones (device events on a GPU, a steady clock on the host); the slowest:\n\n"
                               "| Kernel | Case | Median ms | Min ms | GB/s |\n| --- | --- | --- | --- | --- |\n",
                               timed.size(), timed.front()->timing->launches);
  for (size_t i = 0; i < std::min(kShown, timed.size()); ++i) {
    const KernelTiming& t = *timed[i]->timing;
    md += fmt::format("| {} | {} | {:.4g} | {:.4g} | {:.4g} |\n", cell(timed[i]->kernel), cell(timed[i]->case_name), t.median_ms, t.min_ms,
                      t.gb_per_s);
  }
  return md;
}

// A case the summary lists by name: not a pass, nor a skip the run chose (tier, no device, a
// kernel of the other vendor).
bool worth_listing(const CaseResult& r) {
  if (r.status == Status::PASS || r.status == Status::NOT_RUN) return false;
  return r.status != Status::SKIP || !(find_reason(r.reason) && find_reason(r.reason)->not_for_here);
}

// Each case that did not pass, in a row and then in detail, while the budget lasts: the rows may
// take a third of it; the details leave room for the compile logs' first lines.
void add_failures(MarkdownBudget& md, const std::vector<CaseResult>& results, bool every_case, size_t keep_for_logs) {
  const std::string head = "\n| Kernel | Case | Status | Max diff | Notes |\n| --- | --- | --- | --- | --- |\n";
  std::vector<std::string> rows;
  for (const CaseResult& r : results)
    if (every_case || worth_listing(r)) rows.push_back(case_row(r));
  md.add_list(std::string(every_case ? "\n## Every case\n" : "\n## Cases that did not pass\n") + head, rows,
              [](size_t n) { return fmt::format("\n{} more case(s) did not pass: see test_results.json.\n", n); }, kMarkdownBudget / 3);
  size_t left_out = 0;
  bool details_begun = false;
  for (const CaseResult& r : results) {
    if (!worth_listing(r)) continue;
    const std::string sec = (details_begun ? "" : "\n## Details\n") + case_details(r);
    if (md.add(sec, keep_for_logs)) details_begun = true;
    else ++left_out;
  }
  if (left_out)
    md.add_closing(fmt::format("\n{} more case(s) did not pass: their details are in test_results.json (kept out to fit a pull-request "
                               "comment; --md-every-case writes them all).\n", left_out));
}

}  // namespace

std::string results_markdown(const RunInfo& run, const std::vector<CaseResult>& results) {
  MarkdownBudget md(run.markdown_every_case ? MarkdownBudget::kUnlimited : kMarkdownBudget);
  const Counts c = count_results(results);
  const RunSpec& spec = run.spec;
  std::string head = "# hkcheck results\n\n";
  const std::string device = run.device ? run.device->name + " (" + run.device->arch + ")" : "no device";
  head += fmt::format("- device: {}, backend {}{}\n", cell(device, 400), cell(spec.backend), spec.tier == "all" ? "" : ", tier " + cell(spec.tier) + " only");
  if (run.device && !run.device->note.empty()) head += "- " + cell(run.device->note, 2000) + "\n";
  const std::string seeds = spec.seeds.empty() ? fmt::format("seed {}", spec.seed) : fmt::format("seeds {}", fmt::join(spec.seeds, ","));
  head += fmt::format("- hkcheck {} ({}), host {}, started {}, {}, wall {:.1f} s\n", cell(run.hkcheck_version), cell(run.git_commit),
                      cell(run.host), cell(run.started_at), seeds, run.wall_s);
  if (!run.resumed_from.empty()) head += fmt::format("- resumed from {}\n", cell(run.resumed_from, 1000));
  if (run.sanitizer && !run.sanitizer->ran) head += fmt::format("- --sanitize did not run: {}\n", cell(run.sanitizer->why, 1000));
  if (!run.interrupted.empty())
    head += fmt::format("\n**Interrupted by {}: {} cases were not run; `hkcheck --resume <this folder>` runs them.**\n", run.interrupted, c[Status::NOT_RUN]);
  head += "\n**" + counts_line(c) + "**\n";
  md.add(head);
  std::vector<std::string> errors;
  for (const auto& e : run.manifest_errors) errors.push_back("- " + cell(e, 1000) + "\n");
  md.add_list("\n## Manifest errors\n\n", errors,
              [](size_t n) { return fmt::format("\n{} more manifest error(s): see test_results.json (`run.manifest_errors`).\n", n); },
              kMarkdownBudget / 8);
  add_seed_section(md, results);
  add_kernel_table(md, results);
  md.add(timing_section(results));
  // The compile logs come last but are what a run of broken kernels is about: the details leave
  // room for the first logs.
  const std::vector<std::string> logs = compile_log_pieces(results);
  size_t logs_size = 0;
  for (const std::string& l : logs) logs_size += l.size();
  add_failures(md, results, run.markdown_every_case, std::min<size_t>(logs_size + 100, kMarkdownBudget / 4));
  md.add_list("\n## Compile logs\n", logs,
              [](size_t n) { return fmt::format("\n{} more compile log(s): see test_results.json (`compile_logs`).\n", n); });
  return md.text();
}

}  // namespace hk
