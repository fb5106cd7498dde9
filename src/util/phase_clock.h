// The wall time and the CPU time of one part of a case. A worker runs one case at a time, so the
// process's CPU clock over a part counts what that part cost on every core it used: a reference
// on eight threads for one second of wall costs eight CPU-seconds. A run's cores, not its cases'
// walls, bound a cold run, so the results say both (timings_ms and cpu_ms, docs/results.md).
#pragma once

#include <chrono>

namespace hk {

// CPU milliseconds the whole process (all its threads, past and present) has used.
double process_cpu_ms();

class PhaseClock {
 public:
  PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_(process_cpu_ms()) {}
  double wall_ms() const { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_).count(); }
  double cpu_ms() const { return process_cpu_ms() - cpu_; }

 private:
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

}  // namespace hk
