#include "app/cli/resume.h"

#include <filesystem>
#include <fmt/format.h>

#include "app/cli/command_line.h"
#include "app/cli/run_spec_settings.h"
#include "contracts/run_spec_options.h"
#include "select/seed_sweep.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

// The options of the command line that set a field of spec_differences (named by its option).
std::vector<std::string> options_setting(const std::string& field) {
  if (field == "kernel patterns") return {"kernels", "--all"};
  if (field == "--devices") return {"--device", "--devices"};
  if (field == "--time-launches") return {"--time", "--time-launches"};
  if (field == "-x") return {"--exitfirst"};
  if (field == "-a") return {"--axis"};
  if (field == "--manifests" || field == "references") return {"--root", "--manifests"};
  return {field};
}

// What the command line asked for, as a RunSpec, with what it leaves open ("auto") taken as
// agreeing with the journal.
RunSpec as_given(const Settings& s, const RunSpec& recorded) {
  std::vector<uint64_t> seeds;
  try {
    if (!s.seeds.empty()) seeds = parse_seed_list(s.seeds);
  } catch (const std::invalid_argument&) {
    // select_cases reports a bad --seeds after the resume is refused or taken
  }
  RunSpec g = spec_from_settings(s, seeds, recorded.references);
  if (!s.root_dir.empty()) g.manifests = fs::absolute(fs::path(s.root_dir) / "manifests").lexically_normal().string();
  if (g.backend == "auto" || recorded.backend == "none") g.backend = recorded.backend;
  if (g.tier == "auto") g.tier = recorded.tier;
  std::error_code ec;
  if (fs::weakly_canonical(g.manifests, ec) == fs::weakly_canonical(recorded.manifests, ec)) g.manifests = recorded.manifests;
  return g;
}

// Refuses a setting given with another value than the journal's; true when none was.
bool agrees_with_journal(const Settings& s, const RunSpec& recorded, const std::string& journal) {
  bool ok = true;
  for (const SpecDifference& d : spec_differences(as_given(s, recorded), recorded, true)) {
    bool given = false;
    for (const std::string& option : options_setting(d.field)) given = given || s.was_given(option);
    if (!given || resume_may_change(d.field)) continue;
    fmt::print(stderr, "hkcheck: {}: the run being resumed used {} {}, not {}; resume with the same settings or start a new run\n", journal,
               d.field, d.b, d.a);
    ok = false;
  }
  return ok;
}

// Why the journal's settings are ones the command line would refuse (a timeout of 1e10 or -5, a
// repeat of 1e8, a backend of no name), or "": a journal is a file anyone may have edited. A run
// of a test double (--worker-exe) records the double's own backend name, which it may keep.
std::string refused_record(const RunSpec& recorded, bool test_worker) {
  RunSpec settings = recorded;
  settings.selection = SelectionSpec{};  // the cases are the journal's own list, not selected again
  const std::vector<std::string> options = spec_options(settings);
  const bool known = find_backend(recorded.backend) || recorded.backend == "auto" || recorded.backend == "none";
  if (!known && !test_worker) return fmt::format("--backend {}: not a backend", recorded.backend.substr(0, 64));
  return refused_by_command_line(options).value_or("");
}

}  // namespace

bool resume_may_change(const std::string& option) {
  return option == "--timeout" || option == "--memory-limit" || option == "-x" || option == "--exitfirst" || option == "--maxfail" || option == "--devices" || option == "--device";
}

bool resume_settings(Settings& s, JournalContents* journal, std::string* journal_path) {
  *journal_path = s.resume_dir + "/" + kJournalName;
  try {
    *journal = read_journal(*journal_path);
  } catch (const JournalError& e) {
    fmt::print(stderr, "hkcheck: --resume: {}\n", e.what());
    return false;
  }
  if (journal->dropped_partial_line) fmt::print(stderr, "hkcheck: {}: its last line was cut short and is ignored\n", *journal_path);
  for (int line : journal->damaged_lines)
    fmt::print(stderr, "hkcheck: {}:{}: not a whole JSON line (a torn write); ignored, so its case runs again\n", *journal_path, line);
  if (s.was_given("--out") && fs::weakly_canonical(s.report.out_dir) != fs::weakly_canonical(s.resume_dir)) {
    fmt::print(stderr, "hkcheck: --resume writes into the folder it resumes ({}); leave out --out\n", s.resume_dir);
    return false;
  }
  s.report.out_dir = s.resume_dir;
  const RunSpec& recorded = journal->header.spec;
  if (const std::string why = refused_record(recorded, !s.worker_exe.empty()); !why.empty()) {
    fmt::print(stderr, "hkcheck: {}: its run record holds a setting the command line refuses: {}; start a new run\n", *journal_path, why);
    return false;
  }
  if (!agrees_with_journal(s, recorded, *journal_path)) return false;
  // The overrides resume allows, kept as given.
  const double timeout = s.timeout;
  const int64_t memory_limit = s.memory_limit;
  const bool exit_first = s.exit_first;
  const int max_fail = s.max_fail;
  const std::vector<int> devices = s.devices.empty() ? std::vector<int>{s.device} : s.devices;
  apply_spec(recorded, s);
  if (s.was_given("--timeout")) s.timeout = timeout;
  if (s.was_given("--memory-limit")) s.memory_limit = memory_limit;
  if (s.was_given("--exitfirst")) s.exit_first = exit_first;
  if (s.was_given("--maxfail")) s.max_fail = max_fail;
  if (s.was_given("--device") || s.was_given("--devices")) s.devices = devices, s.device = devices.front();
  return true;
}

}  // namespace hk
