#include "refs/reference_threads.h"

#include <cstdlib>
#include <fmt/format.h>
#include <mutex>

#include "util/parallel_for.h"

namespace hk {

int parse_reference_threads(const std::string& text, std::string* error) {
  int value = 0;
  size_t digits = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > 1024) break;
    value = value * 10 + (c - '0');
    ++digits;
  }
  if (digits == 0 || digits != text.size() || value < 1 || value > 1024) {
    *error = fmt::format("HKCHECK_REF_THREADS='{}' is not a whole number from 1 to 1024", text);
    return 0;
  }
  return value;
}

int reference_threads() {
  const char* env = std::getenv("HKCHECK_REF_THREADS");
  if (!env) return parallel_threads();
  std::string error;
  const int n = parse_reference_threads(env, &error);
  if (n > 0) return n;
  static std::once_flag said;
  std::call_once(said, [&] { fmt::print(stderr, "hkcheck: {}; references use {} thread(s)\n", error, parallel_threads()); });
  return parallel_threads();
}

}  // namespace hk
