// The order in which a run starts its cases: longest first, so that no long case starts last
// while the other workers sit idle. A case's expected cost is its wall time in the previous run
// (case_durations.h), else an estimate from the elements its tensors hold, scaled to the
// recorded times. Only the start order changes: results are reported in the selection's order.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "model/manifest.h"

namespace hk {

// The elements a case's tensors hold, plus a fixed part for what every case costs (a launch, a
// comparison, a reference call); a case that cannot be planned costs the fixed part.
double estimated_case_cost(const KernelSpec& k, const CaseSpec& c);

struct ScheduledCase {
  const KernelSpec* kernel = nullptr;
  const CaseSpec* c = nullptr;
};

// A guess of ms per estimated unit for a run with nothing recorded (a case of a million elements
// costs 0.1 s); only the ratios between cases and against kMinUnitMs matter.
constexpr double kDefaultMsPerEstimate = 1e-4;

// Each case's expected cost in ms: its recorded wall time, else its estimate times the ms per
// estimated unit of the recorded cases (with none recorded, kDefaultMsPerEstimate).
std::vector<double> expected_costs(const std::vector<ScheduledCase>& cases, const std::map<std::string, double>& recorded_ms);

// Splits cases (in the selection's order; kernel_of[i] names case i's kernel) into units a
// worker runs in sequence, and returns them in the order they start. A unit holds consecutive
// cases of one kernel, in their order (a worker keeps the kernel loaded from case to case), at
// most max_unit of them, and no more cost than half a worker's share of the whole (or
// min_unit_cost, when more) unless one case alone exceeds it: a kernel's big cases spread over
// several workers. Units start by cost, the largest first; equal costs keep the selection's order.
std::vector<std::vector<size_t>> schedule_units(const std::vector<const void*>& kernel_of, const std::vector<double>& cost,
                                                size_t workers, size_t max_unit = 16, double min_unit_cost = 0);

// A unit is not split below this expected time: each extra unit may cost a worker start (0.25 to
// 0.4 s for a CUDA context on an H100) and a load of the kernel's program.
constexpr double kMinUnitMs = 1000;

}  // namespace hk
