// A kernel project: a folder holding manifests/ and, usually, kernels/ and references/. hkcheck's
// own repository is one; a team's kernel repository is another, run by an installed hkcheck.
#pragma once

#include <string>
#include <vector>

#include <map>

#include "model/manifest.h"
#include "model/manifest_load.h"
#include "select/reference_index.h"

namespace hk {

struct ProjectPaths {
  std::string root;        // empty when only a manifest folder was named
  std::string manifests;   // the folder of *.json manifests
  std::string references;  // the project's references/ (may not exist: built-in ones only)
};

// --root DIR when given; else --manifests DIR when given (references/ beside it); else the
// current folder when it holds manifests/; else the nearest folder above it that does (as git
// finds its repository); else the folder above hkcheck's binary when it holds manifests/ (a build
// inside the repository). Relative paths stay relative.
ProjectPaths find_project(const std::string& root_flag, const std::string& manifests_flag, const std::string& exe);

// The project's folder: its root, or the folder above its manifests when only those were named.
std::string project_folder(const ProjectPaths& p);

struct LoadedManifests {
  std::vector<KernelSpec> kernels;          // every valid kernel, file_entries linked
  std::vector<std::string> errors;          // one line each, naming the file and the field
  std::vector<std::string> warnings;        // the same, for kernels that still run (ManifestLoad::warnings)
  std::vector<std::string> failed_kernels;  // names of kernels left out because of errors
  std::set<std::string> axes_applied;       // the -a overrides some sweep took
  std::map<std::string, std::string> error_of;  // a left-out kernel's own error: its ERROR row says it

  // Records an error that leaves kernel `name` out of the run.
  void leave_out(const std::string& name, std::string error);
};

// The folder a project's kernel sources must lie in: the git work tree holding its folder (a
// repository's files are already its own), else the folder itself.
std::string source_boundary(const ProjectPaths& p);

// Leaves out, as manifest errors naming the field, the kernels whose source, per-vendor source or
// reference_source lies outside `boundary` (links resolved): hkcheck reads, copies into repro
// folders and quotes what a source holds, and a pull request's manifest could name any file of a
// CI machine. Nothing is left out when allowed (--allow-outside-root).
void refuse_sources_outside(LoadedManifests& loaded, const std::string& boundary, bool allowed);

// Loads and validates every manifest of dir; a broken one is reported and the rest are kept.
// A kernel name defined twice keeps its first definition.
LoadedManifests load_manifests(const std::string& dir, const std::vector<AxisOverride>& axes = {}, bool strict = false);

// Finds every kernel's reference: in hkcheck's built-in folder, the project's references/, and
// the files manifests name ("reference_source"). The project's reference of a built-in's name
// overrides it (a note on stderr and on its cases). When the project's references/ holds
// reference.h and reference_context.cpp (an hkcheck checkout), it replaces the built-in folder. A
// kernel whose reference is nowhere, or defined twice in the project, is an error of its manifest
// (naming the field and the places searched) and is left out.
ReferenceIndex find_references(LoadedManifests& loaded, const ProjectPaths& project);

}  // namespace hk
