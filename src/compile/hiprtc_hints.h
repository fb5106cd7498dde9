// What two of hipRTC's errors mean, said where they appear. In its built-in mode hipRTC brings
// its own small part of the C++ standard library and none of the compiler's C headers, so an
// include of the system's standard headers in device code fails far from the cause:
// "redefinition of 'integral_constant'" inside libstdc++'s <type_traits>, or
// "'stdarg.h' file not found" (stddef.h, ...) inside glibc's headers.
#pragma once

#include <string>

namespace hk {

// The log with each such error followed by what it means and what to change. rocm5: the hipRTC
// has no --hiprtc-no-builtin-header mode to suggest (ROCm 5's).
std::string explain_hiprtc_errors(const std::string& log, bool rocm5);

}  // namespace hk
