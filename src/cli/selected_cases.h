// What run, list and compile-only share: the project found, its manifests loaded (a broken one
// reported and left out), seeds swept, and the kernels and cases the command line selects.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/settings.h"
#include "project.h"
#include "runtime_references.h"
#include "selection.h"

namespace hk {

struct SelectedCases {
  ProjectPaths project;
  LoadedManifests loaded;  // owns the kernels the selection points into
  ReferenceIndex references;
  std::vector<uint64_t> seeds;  // --seeds, parsed
  Selection selection;
  size_t case_count() const;
};

// Loads and selects as s says (s.manifest_dir is set to the folder used). Manifest errors are
// printed and kept in loaded.errors; a usage error (a folder that is not there, a pattern that
// matches nothing, a bad --seeds or --shard) is printed and returns nullopt. With planned (a
// resumed run's case ids), exactly those cases are selected, and one the manifests no longer
// define is a usage error.
std::optional<SelectedCases> select_cases(Settings& s, const std::vector<std::string>* planned = nullptr);

}  // namespace hk
