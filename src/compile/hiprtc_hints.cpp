#include "compile/hiprtc_hints.h"

#include <regex>
#include <sstream>

namespace hk {
namespace {

// The compiler's own C headers, which hipRTC's built-in mode does not put on the include path.
bool compiler_header(const std::string& name) {
  static const std::regex re(R"((std(arg|def|bool|align|atomic|int|noreturn)|float|limits|__stddef_\w+|__stdarg_\w+)\.h)");
  return std::regex_match(name, re);
}

std::string the_fix(bool rocm5) {
  return rocm5 ? "drop that include from the device part or guard it with #ifndef __HIPCC_RTC__ (ROCm 6's and 7's hipRTC "
                 "also take \"options\": [\"--hiprtc-no-builtin-header\", \"-std=c++20\"], which compiles against the real "
                 "HIP, clang and C++ headers; --hiprtc-root names one)"
               : "drop that include from the device part or guard it with #ifndef __HIPCC_RTC__, or compile with "
                 "\"options\": [\"--hiprtc-no-builtin-header\", \"-std=c++20\"], which compiles against the real HIP, clang "
                 "and C++ headers";
}

}  // namespace

std::string explain_hiprtc_errors(const std::string& log, bool rocm5) {
  static const std::regex missing(R"('([^']+)' file not found)");
  static const std::regex redefined(R"(redefinition of '(integral_constant|enable_if|conditional|is_same|remove_reference|remove_cv|declval|true_type|false_type|numeric_limits)')");
  std::istringstream in(log);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, missing) && compiler_header(m[1].str())) {
      line += " (hkcheck: " + m[1].str() +
              " is one of the compiler's own C headers, which hipRTC's built-in mode leaves out; the system's C and C++ "
              "headers need it, so an include of <cstdio>, <cstdarg>, <iostream>, <string> or the like in device code "
              "ends here. Device code has printf, assert and the math functions without any include: " +
              the_fix(rocm5) + ")";
    } else if (std::regex_search(line, m, redefined)) {
      line += " (hkcheck: hipRTC's built-in header defines its own std::" + m[1].str() +
              " and the rest of <type_traits>' basics; the system's <type_traits>, reached through <utility>, <vector>, "
              "<algorithm>, <type_traits> or the like, defines them again. The built-in ones cover what device code "
              "uses: " +
              the_fix(rocm5) + ")";
    }
    out += line + "\n";
  }
  if (!out.empty() && (log.empty() || log.back() != '\n')) out.pop_back();
  return out;
}

}  // namespace hk
