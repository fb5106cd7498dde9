// Which compiler options a manifest may pass, per compiler: hkcheck may run as root, and an option
// is code too (g++ -B<dir>/ runs the project's own `as`, -MD -MF<path> and -Wp,... write anywhere,
// -fplugin= and -Xclang -load load a library into the compiler or into hkcheck's own parse).
// Allowed: defines, include folders and files, the language standard, warnings, optimisation
// levels, and the code-generation flags of each compiler that kernels and tile libraries use;
// an option's value never names a path except where the option is an include folder or file.
// Everything else is refused, naming the option, before any compiler (or the device-part parse)
// sees it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hk {

struct RefusedOption {
  size_t index;         // of the option in the list
  std::string message;  // names the option and the compiler, and says what is allowed
};

// Nothing when every option may go to the compiler of backend ("cuda": NVRTC, "hip": hipRTC,
// "host": the system C++ compiler; "": an option some compiler allows), else the first refused.
std::optional<RefusedOption> refused_option(const std::vector<std::string>& options, const std::string& backend);

}  // namespace hk
