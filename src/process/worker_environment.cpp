#include "process/worker_environment.h"

#include <algorithm>

namespace hk {
namespace {

constexpr const char* kNames[] = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "NO_COLOR", "COLUMNS",
                                  "CC", "CXX", "SOURCE_DATE_EPOCH"};
// The dynamic loader's, the GPU stacks' (CUDA, NVRTC, compute-sanitizer's injection, ROCm, HIP,
// HSA), the math libraries' and OpenMP's (OPENBLAS_CORETYPE picks a correct kernel on some
// processors), the sanitizers', ccache's, and hkcheck's own.
constexpr const char* kPrefixes[] = {"LC_",   "LD_",  "HKCHECK_", "CUDA",  "NV",   "__NV", "CUPTI", "HIP",  "HSA_",  "ROCM",  "ROCR_",
                                     "AMD_",  "HCC_", "GPU_",     "OMP_",  "GOMP_", "KMP_", "OPENBLAS_", "MKL_", "ASAN_", "UBSAN_",
                                     "TSAN_", "LSAN_", "MSAN_",   "CCACHE_"};

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

bool passes_to_workers(const std::string& name) {
  if (std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames)) return true;
  if (name.find("SANITIZER") != std::string::npos || name.find("INJECTION") != std::string::npos) return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](const char* p) { return name.rfind(p, 0) == 0; });
}

std::vector<std::string> worker_environment(char** environ, const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const std::string name = name_of(entry);
    const bool replaced = std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) { return name_of(o) == name; });
    if (!replaced && passes_to_workers(name)) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

}  // namespace hk
