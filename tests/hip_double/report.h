// Says on stderr what went wrong in a call of the double: a real runtime's error codes carry no
// detail, and a worker's output is where a reader of a CRASH looks.
#pragma once

#include <string>

namespace hk::hip_double {

void report(const char* call, const std::string& what);

}  // namespace hk::hip_double
