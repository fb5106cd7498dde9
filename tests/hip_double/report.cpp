#include "report.h"

#include <cstdio>

namespace hk::hip_double {

void report(const char* call, const std::string& what) { std::fprintf(stderr, "hkcheck HIP test double: %s: %s\n", call, what.c_str()); }

}  // namespace hk::hip_double
