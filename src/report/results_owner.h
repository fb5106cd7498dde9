// Whose results a results folder holds, so that a run never replaces them by accident: a run on
// another device, backend or mode (a README line pasted on a machine without the GPU) is refused
// unless --force, and a run that checked nothing (every case skipped) leaves them in place.
#pragma once

#include <optional>
#include <string>

#include "contracts/run_info.h"

namespace hk {

struct ResultsOwner {
  std::string backend;  // the run's: cuda, hip, host, compile-only, or "none" without a device
  std::string device;   // the device's name ("" without one)
  std::string started_at;
  bool checked = false;  // some case reached a verdict (not every one skipped or not run)
};

// The run that wrote out_dir's test_results.json; none when there is none, or it cannot be read
// (a folder hkcheck cannot read is no one's results, and is replaced).
std::optional<ResultsOwner> results_owner(const std::string& out_dir);

// This run's identity (run.device and run.spec, once the device is known).
ResultsOwner owner_of(const RunInfo& run);

// Why this run may not write into a folder holding was's results: "" when it may (nothing
// there, nothing checked there, or the same backend and device).
std::string replace_problem(const std::string& out_dir, const std::optional<ResultsOwner>& was, const ResultsOwner& now);

// Where a run that checked nothing puts its reports beside results that did: OUT/nothing-checked.
std::string nothing_checked_folder(const std::string& out_dir);

}  // namespace hk
