#include "check/verdict_note.h"

#include <fmt/format.h>

#include <algorithm>

namespace hk {

// "passes alone, FAIL after a / b, c / d": what a LEAK verdict means, for the table and console.
std::string leak_note(const LeakFinding& l) {
  std::string after;
  const size_t shown = std::min<size_t>(l.after.size(), 3);
  for (size_t i = l.after.size() - shown; i < l.after.size(); ++i) after += (after.empty() ? "" : ", ") + l.after[i];
  if (static_cast<int64_t>(shown) < l.after_count) after = fmt::format("{} (latest of {} cases)", after, l.after_count);
  const std::string alone = l.alone == Status::PASS ? "passes alone" : fmt::format("{} alone", status_name(l.alone));
  const std::string first = l.in_worker_message.substr(0, l.in_worker_message.find('\n'));
  return fmt::format("{}, {} after {} in the same worker{}", alone, status_name(l.in_worker), after, first.empty() ? "" : ": " + first);
}

std::string verdict_note(const CaseResult& r) {
  if (r.status == Status::SKIP && r.limit)
    return fmt::format("{}: {} requested {}, limit {} (over by {})", r.reason, r.limit->what, r.limit->requested,
                       r.limit->limit, r.limit->requested - r.limit->limit);
  if ((r.status == Status::XFAIL || r.status == Status::XPASS) && r.actual_status && r.expected) {
    CaseResult actual = r;
    actual.status = *r.actual_status;
    const std::string what = verdict_note(actual);
    return fmt::format("{} {} (expected: {}){}", r.status == Status::XFAIL ? "known" : "now", status_name(*r.actual_status),
                       r.expected->why, what.empty() ? "" : "; " + what);
  }
  if (r.status == Status::FLAKY) {
    std::string s;
    for (const auto& d : r.repeat_diffs)
      s += fmt::format("{}{}: {} element(s) differ between launch 1 and {}", s.empty() ? "" : "; ", d.tensor, d.elements, d.launch);
    return s;
  }
  if (r.status == Status::FAIL) {
    std::string s;
    for (const auto& o : r.outputs) {
      if (o.pass) continue;
      s += fmt::format("{}{}: {} of {} outside tolerance", s.empty() ? "" : "; ", o.name, o.mismatches, o.numel);
      if (o.unwritten) s += fmt::format(", {} unwritten", o.unwritten);
      if (o.nonfinite) s += fmt::format(", {} NaN/Inf", o.nonfinite);
      if (o.beyond_hard_ulps) s += fmt::format(", {} beyond {:g} ulps", o.beyond_hard_ulps, o.tolerance.hard_ulps);
      for (const CheckOutcome& c : o.checks)
        if (!c.pass) s += fmt::format(", {}: {}", c.rule, c.summary);
    }
    for (const auto& g : r.guards)
      s += fmt::format("{}{}: {} byte(s) written {} the buffer", s.empty() ? "" : "; ", g.tensor, g.bytes, g.side == "before" ? "before" : "after");
    if (const auto& g = r.read_outside)
      s += fmt::format("{}{}: reads {} the buffer (offset {}{})", s.empty() ? "" : "; ", g->tensor, g->side == "before" ? "before" : "after",
                       g->side == "before" ? "" : "+", g->first_offset);
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

}  // namespace hk
