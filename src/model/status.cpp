#include "model/status.h"

#include <fmt/format.h>

namespace hk {
namespace {

using J = JunitOutcome;
// Colours: green passes, red verdicts on the kernel, magenta verdicts on the harness or the
// setup, yellow what was left out, cyan the expected failures.
constexpr std::array<StatusInfo, kStatusCount> kTable = {{
    {Status::PASS, "PASS", false, true, true, J::passed, "32", "every output matches the reference"},
    {Status::FAIL, "FAIL", true, true, true, J::failure, "31", "an output differs from the reference beyond its tolerance"},
    {Status::CRASH, "CRASH", true, true, true, J::error, "1;31", "the worker died: a GPU fault, a signal, an exit"},
    {Status::TIMEOUT, "TIMEOUT", true, true, true, J::error, "1;31", "no result within --timeout; the worker was killed"},
    {Status::SKIP, "SKIP", false, false, true, J::skipped, "33", "not run here: no device, a hardware limit, another tier, the other vendor's kernel"},
    {Status::COMPILE_ERROR, "COMPILE_ERROR", true, true, true, J::error, "35", "the kernel does not compile"},
    {Status::ERROR, "ERROR", true, true, true, J::error, "35", "the case could not be judged: a manifest, a reference, the harness"},
    {Status::FLAKY, "FLAKY", true, true, false, J::failure, "31", "launches of the same inputs disagree"},
    {Status::XFAIL, "XFAIL", false, true, false, J::skipped, "36", "went wrong as its manifest declares"},
    {Status::XPASS, "XPASS", true, true, false, J::failure, "31", "declared to go wrong, and passed: the manifest is out of date"},
    {Status::NOT_RUN, "NOT_RUN", true, false, false, J::skipped, "33", "not started: the run was interrupted or stopped (-x)"},
    {Status::LEAK, "LEAK", true, true, false, J::failure, "31", "passes alone, not after other cases in the same worker"},
}};

constexpr bool table_in_enum_order() {
  for (int i = 0; i < kStatusCount; ++i)
    if (static_cast<int>(kTable[i].status) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "status_table() is indexed by the enum");

}  // namespace

const std::array<StatusInfo, kStatusCount>& status_table() { return kTable; }
const StatusInfo& status_info(Status s) { return kTable[static_cast<int>(s)]; }
const char* status_name(Status s) { return status_info(s).name; }
bool status_ok(Status s) { return !status_info(s).fails_run; }

std::optional<Status> parse_status(const std::string& s) {
  for (const StatusInfo& i : kTable)
    if (s == i.name) return i.status;
  return std::nullopt;
}

const std::vector<Status>& every_status() {
  static const std::vector<Status> all = [] {
    std::vector<Status> v;
    for (const StatusInfo& i : kTable) v.push_back(i.status);
    return v;
  }();
  return all;
}

bool Counts::any_failed() const {
  for (const StatusInfo& i : kTable)
    if (i.fails_run && (*this)[i.status] > 0) return true;
  return false;
}

int Counts::judged() const {
  int n = 0;
  for (const StatusInfo& i : kTable)
    if (i.judged) n += (*this)[i.status];
  return n;
}

std::string counts_line(const Counts& c) {
  std::string s = fmt::format("{} cases:", c.total);
  const char* sep = " ";
  for (const StatusInfo& i : kTable) {
    if (!i.always_named && c[i.status] == 0) continue;
    s += fmt::format("{}{} {}", sep, c[i.status], i.name);
    sep = ", ";
  }
  return s;
}

const std::vector<ReasonInfo>& reason_table() {
  static const std::vector<ReasonInfo> table = {
      {Reason::HW_LIMIT, "HW_LIMIT", Status::SKIP, false, true, "over a limit of the device (threads, block or grid size, shared memory)"},
      {Reason::TOO_LARGE, "TOO_LARGE", Status::SKIP, false, true, "the tensors do not fit the device's memory or the worker's"},
      {Reason::TIER, "TIER", Status::SKIP, true, false, "a large case outside the run's tier"},
      {Reason::NOT_FOR_VENDOR, "NOT_FOR_VENDOR", Status::SKIP, true, false, "the kernel has the other vendor's file only"},
      {Reason::GPU_ONLY, "GPU_ONLY", Status::SKIP, false, false, "the manifest marks the kernel GPU-only, and this is the host backend"},
      {Reason::NO_DEVICE, "NO_DEVICE", Status::SKIP, true, false, "no device the run could use"},
      {Reason::EMPTY_CASE, "EMPTY_CASE", Status::SKIP, false, false, "every tensor has zero elements: nothing was compared"},
      {Reason::SETUP_TIMEOUT, "SETUP_TIMEOUT", Status::ERROR, false, false, "the compile or the inputs did not finish: the kernel never ran"},
      {Reason::MEMORY_LIMIT, "MEMORY_LIMIT", Status::CRASH, false, false, "the worker's processes held more than --memory-limit"},
  };
  return table;
}

const char* reason_name(Reason r) { return reason_table()[static_cast<size_t>(r)].name; }

const ReasonInfo* find_reason(const std::string& name) {
  for (const ReasonInfo& r : reason_table())
    if (name == r.name) return &r;
  return nullptr;
}

}  // namespace hk
