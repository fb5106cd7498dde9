#include "model/results_folder.h"

#include <algorithm>
#include <fmt/format.h>

namespace hk {

namespace fs = std::filesystem;

std::string results_folder_problem(const std::string& out_dir, const std::string& manifest_dir) {
  std::error_code ec;
  const fs::path out = fs::weakly_canonical(fs::absolute(out_dir, ec), ec);
  const fs::path manifests = fs::weakly_canonical(fs::absolute(manifest_dir, ec), ec);
  if (out.empty() || manifests.empty()) return "";
  const auto [m, o] = std::mismatch(manifests.begin(), manifests.end(), out.begin(), out.end());
  if (m != manifests.end()) return "";  // not under the manifests
  return fmt::format("--out {}: the results folder would be inside the manifests folder {}, and the next run would read its repro "
                     "copies as manifests; give an --out outside it",
                     out_dir, manifest_dir);
}

bool is_results_folder(const fs::path& dir) {
  std::error_code ec;
  const auto has = [&](const char* name) { return fs::exists(fs::symlink_status(dir / name, ec)); };
  return has(".hkcheck.lock") || has("results.jsonl") || (has("test_results.json") && has("test_results.md"));
}

}  // namespace hk
