#include <fmt/format.h>

#include "contracts/mutation_report.h"

namespace hk {
namespace {

std::string score_text(const KernelMutation& k) {
  if (!k.skipped.empty()) return "-";
  const auto s = k.score();
  return s ? fmt::format("{:.0f}%", 100 * *s) : "-";
}

// "**12 of 14 kernels scored; overall score 93% (280 killed, 21 survived); 21 survivors to explain**"
std::string summary_line(const MutationSummary& s) {
  const auto score = s.score();
  return fmt::format("**{} of {} kernels scored; overall score {}; {} survivor{} to explain{}**", s.scored, s.kernels,
                     score ? fmt::format("{:.0f}% ({} killed, {} survived)", 100 * *score, s.killed, s.survived) : "-", s.survived,
                     s.survived == 1 ? "" : "s", s.equivalent ? fmt::format(" ({} explained as equivalent)", s.equivalent) : "");
}

}  // namespace

std::string mutation_markdown(const MutationReport& r) {
  std::string md = "# Mutation report\n\n" + summary_line(summarize(r)) + "\n\n";
  std::string cmd;
  for (const std::string& a : r.command) cmd += (cmd.empty() ? "" : " ") + a;
  md += fmt::format("`{}`\n\n", cmd);
  md += fmt::format("{} on {}{}, seed {}, {} mutants per kernel at most, budget {}, {} at once; {:.0f} s{}.\n\n", r.device ? r.device->backend : "no device",
                    r.device ? r.device->name : "-", r.host_profile.empty() ? "" : " (profile " + r.host_profile + ")", r.seed,
                    r.max_mutants ? std::to_string(r.max_mutants) : "all", r.budget_s > 0 ? fmt::format("{:g} s", r.budget_s) : "none", r.parallel, r.wall_s,
                    r.budget_exhausted ? "; the budget ran out (NOT_RUN mutants)" : "");
  md += "Score: killed / (killed + survived). Equivalent mutants are explained in the manifest; discarded ones did not compile.\n\n";
  md += "| kernel | score | killed | survived | equivalent | discarded | not run | of | cases | seconds |\n";
  md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const KernelMutation& k : r.kernels)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0f} |\n", k.kernel, score_text(k), k.count(MutantOutcome::KILLED),
                      k.count(MutantOutcome::SURVIVED), k.count(MutantOutcome::EQUIVALENT), k.count(MutantOutcome::DISCARDED),
                      k.count(MutantOutcome::NOT_RUN), k.candidates, k.cases, k.seconds);
  for (const KernelMutation& k : r.kernels) {
    if (!k.skipped.empty()) md += fmt::format("\n**{}**: no score: {}\n", k.kernel, k.skipped);
    for (const std::string& id : k.stale_equivalents)
      md += fmt::format("\n**{}**: the manifest's equivalent mutant `{}` is no mutant of {} any more\n", k.kernel, id, k.source);
  }
  for (const MutantOutcome o : {MutantOutcome::SURVIVED, MutantOutcome::EQUIVALENT}) {
    bool heading = false;
    for (const KernelMutation& k : r.kernels)
      for (const MutantRecord& m : k.mutants) {
        if (m.outcome != o) continue;
        if (!heading) md += o == MutantOutcome::SURVIVED ? "\n## Surviving mutants\n" : "\n## Equivalent mutants\n";
        heading = true;
        md += fmt::format("\n### {} `{}`\n\n{}{}\n\n```diff\n{}```\n", k.kernel, m.id, m.description, m.why.empty() ? "" : ": " + m.why, m.diff);
      }
  }
  return md;
}

}  // namespace hk
