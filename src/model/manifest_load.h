// Reading the manifests: every *.json under a folder, each read and validated kernel by kernel,
// bad input collected as errors naming the file and the field (docs/manifest.md).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/axis_override.h"
#include "model/manifest.h"

namespace hk {

struct ManifestLoad {
  std::vector<KernelSpec> kernels;   // only kernels that passed validation
  std::vector<std::string> errors;   // "FILE: /json/path: what was expected"
  std::vector<std::string> warnings;  // "FILE: /json/path: ..." for project rules broken by kernels that still run
  std::vector<std::string> failed_kernels;  // names (or "FILE#/kernels/i") of kernels with errors
  std::set<std::string> axes_applied;       // the -a overrides some sweep here took
};

// Reads and validates one manifest, including every case's plan, so that a run never starts a
// case that cannot be planned. Never throws for bad input: errors are collected.
// axes: -a overrides applied to its sweeps (axis_override.h). strict: a project rule a kernel
// breaks (a loosened tolerance without "why") is an error that leaves it out, not a warning.
ManifestLoad load_manifest(const std::string& path, const std::vector<AxisOverride>& axes = {}, bool strict = false);

// Fills each kernel's file_entries from the kernels given (those of one run).
void link_file_entries(std::vector<KernelSpec>& kernels);

// All *.json files under dir, sorted.
// *.json entries that are not regular files (a FIFO, a folder, a dangling link) are not opened (a
// FIFO would block): each goes into *not_files, when given, as "PATH: why".
std::vector<std::string> find_manifests(const std::string& dir, std::vector<std::string>* not_files = nullptr);

}  // namespace hk
