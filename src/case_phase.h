// Which part of a case a worker is in, told to the parent as it goes: a worker that dies or runs
// past its time inside the reference ends the case as an ERROR of the reference, never as a
// CRASH or TIMEOUT of a kernel that may be right (the reference runs in the worker, after the
// kernel, and before it for derived inputs).
#pragma once

#include <functional>
#include <string>

namespace hk {

inline constexpr const char* kPhaseInputs = "inputs";
inline constexpr const char* kPhaseKernel = "kernel";
inline constexpr const char* kPhaseReference = "reference";
inline constexpr const char* kPhaseChecks = "checks";

// Where enter_case_phase reports to (the worker's channel); none by default (tests, in-process).
void set_case_phase_sink(std::function<void(const std::string& phase)> sink);
// Tells the sink that the case now runs `phase`.
void enter_case_phase(const std::string& phase);

}  // namespace hk
