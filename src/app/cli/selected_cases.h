// What run, list and compile-only share: the project found, its manifests loaded (a broken one
// reported and left out), seeds swept, and the kernels and cases the command line selects.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/settings.h"
#include "select/project.h"
#include "refs/runtime_references.h"
#include "select/selection.h"

namespace hk {

struct SelectedCases {
  ProjectPaths project;
  LoadedManifests loaded;  // owns the kernels the selection points into
  ReferenceIndex references;
  std::vector<uint64_t> seeds;  // --seeds, parsed
  Selection selection;
  bool last_run_green = false;  // --last-failed named a run in which every case passed
  size_t case_count() const;
};

// Loads and selects as s says (s.manifest_dir is set to the folder used). Manifest errors are
// printed and kept in loaded.errors; a usage error (a folder that is not there, a kernel name that
// matches nothing while others match, a bad -k, --seeds or --shard) is printed and returns
// nullopt. Nothing selected at all is no error: the selection is empty (the run exits 3). With planned (a
// resumed run's case ids), exactly those cases are selected, and one the manifests no longer
// define is a usage error.
std::optional<SelectedCases> select_cases(Settings& s, const std::vector<std::string>* planned = nullptr);

}  // namespace hk
