#include "project.h"

#include <filesystem>
#include <fmt/format.h>
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

}  // namespace hk
