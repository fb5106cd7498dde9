// Which part of a case a worker is in, told to the parent as it goes: a worker that dies or runs
// past its time inside the reference ends the case as an ERROR of the reference, never as a
// CRASH or TIMEOUT of a kernel that may be right (the reference runs in the worker, after the
// kernel, and before it for derived inputs). Each part has its own clock (worker_session.h): the
// case timeout is the kernel's, from its first launch; what comes before and the reference after
// wait for the CPU on a loaded machine and have --compile-timeout.
#pragma once

#include <functional>
#include <string>

#include "contracts/result.h"

namespace hk {

inline constexpr const char* kPhaseInputs = "inputs";
inline constexpr const char* kPhaseCompile = "compile";
inline constexpr const char* kPhaseKernel = "kernel";
inline constexpr const char* kPhaseReference = "reference";
inline constexpr const char* kPhaseChecks = "checks";
// --time's launches, after the verdict: the phase carries the checked record, which stands if
// they run past their time.
inline constexpr const char* kPhaseTiming = "timing";

// Whether a case in `phase` has not launched its kernel yet.
bool before_the_kernel(const std::string& phase);

// Where enter_case_phase reports to (the worker's channel); none by default (tests, in-process).
// checked: the case's record so far, for kPhaseTiming only.
void set_case_phase_sink(std::function<void(const std::string& phase, const CaseResult* checked)> sink);
// Tells the sink that the case now runs `phase`.
void enter_case_phase(const std::string& phase, const CaseResult* checked = nullptr);

}  // namespace hk
