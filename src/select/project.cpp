#include "select/project.h"

#include <filesystem>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace hk {
namespace fs = std::filesystem;

ProjectPaths find_project(const std::string& root_flag, const std::string& manifests_flag, const std::string& exe) {
  auto at = [](const fs::path& root) {
    return ProjectPaths{root.string(), (root / "manifests").string(), (root / "references").string()};
  };
  if (!root_flag.empty()) return at(root_flag);
  if (!manifests_flag.empty()) {
    const fs::path m(manifests_flag);
    return ProjectPaths{"", m.string(), (m.lexically_normal().parent_path() / "references").string()};
  }
  std::error_code ec;
  if (fs::is_directory("manifests", ec)) return at(".");
  // Like git: the nearest folder above the current one that is a project.
  const fs::path here = fs::current_path(ec);
  if (!ec)
    for (fs::path p = here.parent_path(); !p.empty(); p = p.parent_path()) {
      if (fs::is_directory(p / "manifests", ec)) return at(p);
      if (p == p.root_path()) break;
    }
  const fs::path above = fs::path(exe).parent_path().parent_path();
  if (fs::is_directory(above / "manifests", ec)) return at(above);
  return at(".");
}

void LoadedManifests::leave_out(const std::string& name, std::string error) {
  error_of.emplace(name, error);  // the first error a kernel meets is the one its row says
  errors.push_back(std::move(error));
  failed_kernels.push_back(name);
}

std::string project_folder(const ProjectPaths& p) {
  if (!p.root.empty()) return p.root;
  fs::path m = fs::path(p.manifests).lexically_normal();
  if (!m.has_filename()) m = m.parent_path();  // "manifests/"
  return m.has_parent_path() ? m.parent_path().string() : ".";
}

LoadedManifests load_manifests(const std::string& dir, const std::vector<AxisOverride>& axes, bool strict) {
  LoadedManifests out;
  std::map<std::string, std::string> kernel_home;
  std::vector<std::string> not_files;
  const std::vector<std::string> files = find_manifests(dir, &not_files);
  out.errors = not_files;
  if (files.empty() && not_files.empty()) out.errors.push_back(dir + ": no *.json manifests in this folder (or pass --manifests DIR)");
  for (const std::string& file : files) {
    ManifestLoad load = load_manifest(file, axes, strict);
    out.warnings.insert(out.warnings.end(), load.warnings.begin(), load.warnings.end());
    out.axes_applied.insert(load.axes_applied.begin(), load.axes_applied.end());
    // load_manifest records each error with the kernel it leaves out, pair by pair.
    for (size_t i = 0; i < load.errors.size(); ++i)
      if (i < load.failed_kernels.size()) out.leave_out(load.failed_kernels[i], load.errors[i]);
      else out.errors.push_back(load.errors[i]);
    for (KernelSpec& k : load.kernels) {
      if (const auto it = kernel_home.find(k.name); it != kernel_home.end()) {
        out.leave_out(k.name, fmt::format("{}: {}/name: kernel '{}' is already defined in {}", file, k.json_path, k.name, it->second));
        continue;
      }
      kernel_home[k.name] = file;
      out.kernels.push_back(std::move(k));
    }
  }
  link_file_entries(out.kernels);
  return out;
}

namespace {

// A project whose references/ holds a reference runtime is an hkcheck checkout (or a copy of
// one): its references are the whole set, and hkcheck's built-in folder, the same files
// elsewhere (the checkout this binary was built from), is not read. Otherwise the built-in
// references come first and the project's own may override them.
ReferenceIndex scan_project_references(const ProjectPaths& project, const std::vector<std::string>& files) {
  if (!project.references.empty() && holds_reference_runtime(project.references)) {
    ReferenceIndex index = scan_references({project.references}, files, project.references);
    index.runtime = project.references;
    return index;
  }
  const std::string builtin = builtin_references_dir();
  return scan_references({builtin, project.references}, files, builtin);
}

// A derived tensor's reference runs from the library of the kernel's own reference (one file):
// "" when every one is defined there, else the error naming the manifest and the field.
std::string derived_reference_outside(const KernelSpec& k, const ReferenceIndex& index, const std::string& file) {
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const std::optional<GeneratorSpec>& init = k.tensors[i].init;
    if (!init || init->kind != kDerivedKind) continue;
    const auto it = index.file_of.find(init->reference);
    if (it != index.file_of.end() && it->second == file) continue;
    return fmt::format("{}: {}/tensors/{}/init/reference: no HK_REFERENCE({}) in {}, the file of the kernel's reference '{}' "
                       "(a derived tensor's reference runs from that file's library){}",
                       k.manifest, k.json_path, i, init->reference, file, k.reference,
                       it == index.file_of.end() ? "" : "; it is defined in " + it->second);
  }
  return "";
}

}  // namespace

std::string source_boundary(const ProjectPaths& p) {
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(project_folder(p)), ec);
  for (fs::path at = folder; !at.empty(); at = at.parent_path()) {
    if (fs::exists(at / ".git", ec)) return at.string();
    if (at == at.root_path()) break;
  }
  return folder.string();
}

namespace {

bool lies_inside(const std::string& path, const std::string& boundary) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  const fs::path rel = p.lexically_relative(boundary);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

void refuse_sources_outside(LoadedManifests& loaded, const std::string& boundary, bool allowed) {
  if (allowed) return;
  std::vector<KernelSpec> kept;
  for (KernelSpec& k : loaded.kernels) {
    std::vector<std::pair<std::string, std::string>> files = {{"source", k.source}, {"reference_source", k.reference_source}};
    for (const auto& [vendor, file] : k.vendor_sources) files.emplace_back("source/" + vendor, file);
    const auto outside = std::find_if(files.begin(), files.end(), [&](const auto& f) { return !f.second.empty() && !lies_inside(f.second, boundary); });
    if (outside == files.end()) {
      kept.push_back(std::move(k));
      continue;
    }
    loaded.leave_out(k.name, fmt::format("{}: {}/{}: {} lies outside the project ({}): hkcheck reads, copies and quotes kernel sources, "
                                         "so one outside is refused; --allow-outside-root takes it",
                                         k.manifest, k.json_path, outside->first, outside->second, boundary));
  }
  loaded.kernels = std::move(kept);
}

ReferenceIndex find_references(LoadedManifests& loaded, const ProjectPaths& project) {
  std::vector<std::string> files;
  for (const KernelSpec& k : loaded.kernels)
    if (!k.reference_source.empty()) files.push_back(k.reference_source);
  ReferenceIndex index = scan_project_references(project, files);
  for (const std::string& e : index.errors) loaded.errors.push_back("references: " + e);
  for (const auto& [name, note] : index.notes) fmt::print(stderr, "hkcheck: note: {}\n", note);
  std::string searched;
  for (const std::string& s : index.searched) searched += (searched.empty() ? "" : ", ") + s;
  std::vector<KernelSpec> kept;
  for (KernelSpec& k : loaded.kernels) {
    const auto it = index.file_of.find(k.reference);
    const bool named_file_has_it = k.reference_source.empty() || (it != index.file_of.end() && it->second == std::filesystem::weakly_canonical(k.reference_source).string());
    if (it == index.file_of.end() || !named_file_has_it) {
      loaded.leave_out(k.name, fmt::format("{}: {}/reference: no HK_REFERENCE({}) in {}", k.manifest, k.json_path, k.reference,
                                           k.reference_source.empty() ? searched : k.reference_source));
      continue;
    }
    if (const std::string bad = derived_reference_outside(k, index, it->second); !bad.empty()) {
      loaded.leave_out(k.name, bad);
      continue;
    }
    kept.push_back(std::move(k));
  }
  loaded.kernels = std::move(kept);
  link_file_entries(loaded.kernels);
  return index;
}

}  // namespace hk
