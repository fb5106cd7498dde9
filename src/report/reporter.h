// One form a run's results take (the console, a file): what every reporter is told, in order.
// reporters.h builds the set a mode's settings ask for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/result.h"
#include "contracts/run_info.h"

namespace hk {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // A case reached its verdict (called one at a time, in the order cases finish).
  virtual void case_finished(const CaseResult& /*r*/, size_t /*done*/, size_t /*total*/) {}
  // The run is over; false with *err when the report could not be written.
  virtual bool run_finished(const RunInfo& run, const std::vector<CaseResult>& results, std::string* err) = 0;
  // The results folder's files go to dir instead (results_owner.h: a run that checked nothing).
  virtual void files_go_to(const std::string& /*dir*/) {}
};

}  // namespace hk
