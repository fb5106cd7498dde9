#include "project.h"

#include <filesystem>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <map>

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
  const fs::path above = fs::path(exe).parent_path().parent_path();
  if (fs::is_directory(above / "manifests", ec)) return at(above);
  return at(".");
}

LoadedManifests load_manifests(const std::string& dir) {
  LoadedManifests out;
  std::map<std::string, std::string> kernel_home;
  std::vector<std::string> not_files;
  const std::vector<std::string> files = find_manifests(dir, &not_files);
  out.errors = not_files;
  if (files.empty() && not_files.empty()) out.errors.push_back(dir + ": no *.json manifests in this folder (or pass --manifests DIR)");
  for (const std::string& file : files) {
    ManifestLoad load = load_manifest(file);
    out.errors.insert(out.errors.end(), load.errors.begin(), load.errors.end());
    out.failed_kernels.insert(out.failed_kernels.end(), load.failed_kernels.begin(), load.failed_kernels.end());
    for (KernelSpec& k : load.kernels) {
      if (const auto it = kernel_home.find(k.name); it != kernel_home.end()) {
        out.errors.push_back(fmt::format("{}: {}/name: kernel '{}' is already defined in {}", file, k.json_path, k.name, it->second));
        out.failed_kernels.push_back(k.name);
        continue;
      }
      kernel_home[k.name] = file;
      out.kernels.push_back(std::move(k));
    }
  }
  link_file_entries(out.kernels);
  return out;
}

ReferenceIndex find_references(LoadedManifests& loaded, const ProjectPaths& project) {
  std::vector<std::string> files;
  for (const KernelSpec& k : loaded.kernels)
    if (!k.reference_source.empty()) files.push_back(k.reference_source);
  ReferenceIndex index = scan_references({builtin_references_dir(), project.references}, files);
  for (const std::string& e : index.errors) loaded.errors.push_back("references: " + e);
  std::string searched;
  for (const std::string& s : index.searched) searched += (searched.empty() ? "" : ", ") + s;
  std::vector<KernelSpec> kept;
  for (KernelSpec& k : loaded.kernels) {
    const auto it = index.file_of.find(k.reference);
    const bool named_file_has_it = k.reference_source.empty() || (it != index.file_of.end() && it->second == std::filesystem::weakly_canonical(k.reference_source).string());
    if (it == index.file_of.end() || !named_file_has_it) {
      loaded.errors.push_back(fmt::format("{}: {}/reference: no HK_REFERENCE({}) in {}", k.manifest, k.json_path, k.reference,
                                          k.reference_source.empty() ? searched : k.reference_source));
      loaded.failed_kernels.push_back(k.name);
      continue;
    }
    kept.push_back(std::move(k));
  }
  loaded.kernels = std::move(kept);
  link_file_entries(loaded.kernels);
  return index;
}

std::map<std::string, ReferenceLibrary> build_references(const std::vector<const KernelSpec*>& kernels, const ReferenceIndex& index,
                                                         const std::string& cache_dir, int jobs) {
  std::vector<std::string> files;
  for (const KernelSpec* k : kernels)
    if (const auto it = index.file_of.find(k->reference); it != index.file_of.end() &&
                                                          std::find(files.begin(), files.end(), it->second) == files.end())
      files.push_back(it->second);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<ReferenceLibrary> libs = build_reference_libraries(files, cache_dir, jobs);
  int built = 0;
  for (const ReferenceLibrary& l : libs) built += !l.cached;
  if (built)
    fmt::print(stderr, "hkcheck: compiled {} reference file(s) of {} in {:.1f} s\n", built, files.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  std::map<std::string, ReferenceLibrary> out;
  for (const auto& [name, file] : index.file_of) {
    const size_t i = std::find(files.begin(), files.end(), file) - files.begin();
    if (i < files.size()) out[name] = libs[i];
  }
  return out;
}

}  // namespace hk
