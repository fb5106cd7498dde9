#include "faults.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace hk::hip_double {
namespace {

std::string variable(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Faults Faults::from_environment() {
  Faults f;
  f.illegal_address = variable("HKCHECK_HIP_DOUBLE_ILLEGAL_ADDRESS");
  f.lose_device = variable("HKCHECK_HIP_DOUBLE_LOSE_DEVICE");
  f.missing_entry = variable("HKCHECK_HIP_DOUBLE_MISSING_ENTRY");
  if (const std::string bytes = variable("HKCHECK_HIP_DOUBLE_MAX_ALLOC"); !bytes.empty()) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(bytes.c_str(), &end, 10);
    if (bytes.find_first_not_of("0123456789") != std::string::npos || *end != '\0' || errno == ERANGE)
      throw std::invalid_argument("HKCHECK_HIP_DOUBLE_MAX_ALLOC='" + bytes + "' is not a number of bytes");
    f.max_alloc = n;
  }
  return f;
}

}  // namespace hk::hip_double
