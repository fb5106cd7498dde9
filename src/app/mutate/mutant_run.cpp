#include "app/mutate/mutant_run.h"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>

#include "util/file_util.h"
#include "util/fnv1a.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string first_line_of(const std::string& text) { return text.substr(0, std::min(text.find('\n'), size_t{300})); }

void judge(const KernelUnderMutation& k, const std::vector<CaseResult>& results, const Mutant& m, MutantRecord& r) {
  if (results.empty()) return;
  for (const CaseResult& c : results) {
    if (c.status == Status::PASS || c.status == Status::NOT_RUN) continue;
    if (c.status == Status::COMPILE_ERROR) {
      r.outcome = MutantOutcome::DISCARDED, r.why = first_line_of(c.message);
    } else {
      r.outcome = MutantOutcome::KILLED;
      r.killed_by = fmt::format("{}: {} {}", c.case_name, status_name(c.status), first_line_of(c.message));
    }
    return;
  }
  if (std::any_of(results.begin(), results.end(), [](const CaseResult& c) { return c.status == Status::NOT_RUN; })) return;  // interrupted
  r.outcome = MutantOutcome::SURVIVED;
  r.diff = mutant_diff(shown_path(k.kernel->source), k.source, m);
  for (const EquivalentMutant& e : k.kernel->equivalent_mutants)
    if (e.id == m.id) r.outcome = MutantOutcome::EQUIVALENT, r.why = e.why;
}

}  // namespace

std::string shown_path(const std::string& path) {
  std::error_code ec;
  const fs::path rel = fs::relative(path, fs::current_path(), ec);
  return ec || rel.empty() || *rel.begin() == ".." ? path : rel.string();
}

std::vector<CaseResult> run_kernel_cases(const KernelSpec& k, const std::vector<const CaseSpec*>& cases, const RunOptions& o) {
  Runner runner(o);
  std::vector<CaseTask> tasks;
  for (const CaseSpec* c : cases) tasks.push_back(CaseTask{&k, c, ""});
  std::vector<CaseResult> results(tasks.size());
  runner.run_all(tasks, [&](size_t i, CaseResult r) { results[i] = std::move(r); });
  return results;
}

MutantRecord unrun_record(const Mutant& m) {
  MutantRecord r;
  r.id = m.id, r.op = m.op, r.description = m.description, r.line = m.line;
  return r;
}

MutantRecord run_mutant(const KernelUnderMutation& k, const Mutant& m, RunOptions o, const std::string& scratch) {
  MutantRecord r = unrun_record(m);
  const Clock::time_point start = Clock::now();
  // The mutant beside nothing else, in a folder of its own; the original's folder stays on the
  // include path, so its headers (and ../ paths from there) resolve as before.
  const fs::path dir = fs::path(scratch) / k.kernel->name / fmt::format("{:016x}", fnv1a(m.id));
  std::error_code ec;
  fs::create_directories(dir, ec);
  KernelSpec mk = *k.kernel;
  mk.source = (dir / fs::path(k.kernel->source).filename()).string();
  mk.include_dirs.insert(mk.include_dirs.begin(), fs::absolute(k.kernel->source).parent_path().string());
  std::string err;
  if (ec || !write_file_atomic(mk.source, apply_mutant(k.source, m), &err)) {
    r.outcome = MutantOutcome::DISCARDED, r.why = "could not write the mutant: " + (ec ? ec.message() : err);
    return r;
  }
  o.max_fail = 1, o.timeout_s = k.mutant_timeout_s;
  std::vector<CaseResult> results;
  try {
    results = run_kernel_cases(mk, k.passing, o);
  } catch (const std::exception& e) {
    r.outcome = MutantOutcome::DISCARDED, r.why = e.what();
  }
  fs::remove_all(dir, ec);
  judge(k, results, m, r);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace hk
