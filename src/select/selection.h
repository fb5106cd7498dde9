// Which kernels a run covers: names or shell globs over all loaded kernels.
#pragma once

#include <string>
#include <vector>

#include "model/manifest.h"

namespace hk {

struct Selection {
  std::vector<const KernelSpec*> kernels;  // in manifest order, each once
  std::vector<std::string> errors;         // patterns that matched nothing, with suggestions
};

// Empty patterns select everything. A pattern that matches only kernels in `left_out` (left out
// for manifest errors, which report them) is not "no kernel matches".
Selection select_kernels(const std::vector<KernelSpec>& all, const std::vector<std::string>& patterns,
                         const std::vector<std::string>& left_out = {});

}  // namespace hk
