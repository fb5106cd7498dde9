// The verdicts a case can reach, and one table of what each means to a run: whether it fails
// the run, whether the kernel was judged at all, where JUnit files it, how the console colours
// it. Summaries, exit codes, JUnit and the console all read this table, never a list of their own.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace hk {

// NOT_RUN: the run was interrupted before the case finished; `hkcheck --resume` runs it.
// FLAKY: launches of the same inputs gave different outputs. XFAIL: the case reached the verdict
// its manifest expects (see expectation.h); XPASS: it was expected to go wrong and passed.
// LEAK: the verdict depends on what ran before: in a reused worker the case did not pass, alone
// in a fresh worker it reached another verdict (CaseResult::leak says both, and what ran before).
enum class Status { PASS, FAIL, CRASH, TIMEOUT, SKIP, COMPILE_ERROR, ERROR, FLAKY, XFAIL, XPASS, NOT_RUN, LEAK };
constexpr int kStatusCount = 12;

// How a JUnit report files a verdict: failure (the kernel is wrong), error (the case could not
// be judged), skipped (with the reason).
enum class JunitOutcome { passed, failure, error, skipped };

struct StatusInfo {
  Status status;
  const char* name;
  bool fails_run;     // a run with a case of this verdict exits 1
  bool judged;        // the kernel was checked; a run with no judged case exits 3
  bool always_named;  // the counts line names it even when no case has it
  JunitOutcome junit;
  const char* colour;   // ANSI SGR parameters for a terminal ("" for none)
  const char* meaning;  // one line, for --help and the docs
};

const std::array<StatusInfo, kStatusCount>& status_table();  // in the order of the enum
const StatusInfo& status_info(Status s);
const char* status_name(Status s);
std::optional<Status> parse_status(const std::string& s);
bool status_ok(Status s);  // does not fail a run: PASS, SKIP and XFAIL
// Every status, in the order of the enum: the columns of per-kernel summaries.
const std::vector<Status>& every_status();

// How many cases reached each verdict.
struct Counts {
  int total = 0;
  std::array<int, kStatusCount> by_status{};
  int operator[](Status s) const { return by_status[static_cast<int>(s)]; }
  void add(Status s) { ++total, ++by_status[static_cast<int>(s)]; }
  bool any_failed() const;  // a case whose verdict fails the run
  int judged() const;       // cases whose kernel was checked (not SKIP, not NOT_RUN)
};
// Why a case reached its verdict without its outputs being judged: the reasons of SKIP, and of an
// ERROR or a CRASH the run, not the kernel, caused. A result carries the name (its "reason"
// field); a name no row has (another hkcheck's) is kept as it came.
enum class Reason { HW_LIMIT, TOO_LARGE, TIER, NOT_FOR_VENDOR, GPU_ONLY, NO_DEVICE, EMPTY_CASE, SETUP_TIMEOUT, MEMORY_LIMIT };
struct ReasonInfo {
  Reason reason;
  const char* name;
  Status status;        // the verdict it goes with
  bool not_for_here;    // the run did not mean to run it here (tier, vendor, no device): not a result to compare
  bool hardware_limit;  // the case asks more than the device has
  const char* meaning;  // one line, for the docs
};
const std::vector<ReasonInfo>& reason_table();  // in the order of the enum
const char* reason_name(Reason r);
const ReasonInfo* find_reason(const std::string& name);  // nullptr when no row has it
// Whether a result's reason is r.
inline bool has_reason(const std::string& reason, Reason r) { return reason == reason_name(r); }

// "N cases: a PASS, b FAIL, ..." as the console and the markdown print it: the usual verdicts
// always, the rare ones only when a case has them.
std::string counts_line(const Counts& c);

}  // namespace hk
