// What of hkcheck's environment its workers see, and so the kernels they run: what finds the
// tools and the GPU (PATH, the loader's and the GPU stacks' variables), the locale, the temporary
// folder, and hkcheck's own settings. The rest (tokens, keys, a CI's secrets) stays with hkcheck:
// a kernel that prints its environment puts it in the results, which a pull request's comment
// may quote.
#pragma once

#include <string>
#include <vector>

namespace hk {

// Whether the variable name passes to a worker (README.md, "How it works": "What a kernel sees").
bool passes_to_workers(const std::string& name);

// The entries ("NAME=value") of environ that pass, then overrides in place of (or beside) them.
std::vector<std::string> worker_environment(char** environ, const std::vector<std::string>& overrides);

}  // namespace hk
