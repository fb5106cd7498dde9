// A results folder inside the manifests folder would be read back as manifests by the next run:
// such an --out is refused, and a results folder found there is not searched.
#include "model/results_folder.h"

#include <gtest/gtest.h>

#include "model/manifest.h"
#include "model/manifest_load.h"
#include "test_util.h"

namespace hk {
namespace {

TEST(ResultsFolder, OutInsideTheManifestsIsRefused) {
  test::TempDir dir;
  const std::string m = dir.path() + "/manifests";
  std::filesystem::create_directories(m);
  EXPECT_NE(results_folder_problem(m + "/results", m), "");
  EXPECT_NE(results_folder_problem(m, m), "");
  EXPECT_NE(results_folder_problem(m + "/a/../b", m + "/"), "");
  EXPECT_NE(results_folder_problem(m + "/results", m).find("inside the manifests folder"), std::string::npos);
  EXPECT_EQ(results_folder_problem(dir.path() + "/results", m), "");
  EXPECT_EQ(results_folder_problem(dir.path() + "/manifests2", m), "") << "a sibling whose name starts alike";
  EXPECT_EQ(results_folder_problem(dir.path(), m), "") << "the manifests inside the results folder are not written to";
  std::filesystem::create_directory_symlink(m, dir.path() + "/link");
  EXPECT_NE(results_folder_problem(dir.path() + "/link/out", m), "") << "through a link to the manifests";
}

TEST(ResultsFolder, ManifestDiscoverySkipsResultsFolders) {
  test::TempDir dir;
  dir.write("m/a.json", "{}");
  dir.write("m/sub/b.json", "{}");
  dir.write("m/old/.hkcheck.lock", "");
  dir.write("m/old/repro/k/c/manifest.json", "{}");
  dir.write("m/compiled/test_results.json", "{}");
  dir.write("m/compiled/test_results.md", "");
  dir.write("m/.hkcheck/last-run.json", "{}");  // the project's state, when the manifests are its folder
  const std::vector<std::string> found = find_manifests(dir.path() + "/m");
  EXPECT_EQ(found, (std::vector<std::string>{dir.path() + "/m/a.json", dir.path() + "/m/sub/b.json"}));
}

}  // namespace
}  // namespace hk
