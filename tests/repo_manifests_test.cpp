// The repository's own manifests and the hkcheck binary, without a GPU.
#include <array>
#include <cstdio>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "model/manifest.h"
#include "model/manifest_load.h"

namespace hk {
namespace {

struct Output {
  int code;
  std::string text;
};

Output run(const std::string& args) {
  const std::string cmd = std::string("cd ") + REPO_DIR + " && " + HKCHECK_PATH + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}

TEST(RepoManifests, EveryManifestIsValid) {
  for (const std::string dir : {"/manifests", "/tests/known_bad"}) {
    const auto files = find_manifests(std::string(REPO_DIR) + dir);
    ASSERT_FALSE(files.empty()) << dir;
    for (const auto& f : files) {
      const ManifestLoad m = load_manifest(f);
      EXPECT_TRUE(m.errors.empty()) << m.errors[0];
      EXPECT_FALSE(m.kernels.empty()) << f;
    }
  }
}

TEST(Cli, ListWorksWithoutAGpu) {
  const Output o = run("--list rmsnorm");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("rmsnorm  ("), std::string::npos) << o.text;
}

// A name that matches nothing is "nothing selected" (3), as -k is; beside a name that matches, it
// is a typo: a usage error (2). Both suggest the name meant.
TEST(Cli, UnknownKernelSuggestsANameAndSelectsNothing) {
  const Output o = run("--list rmsnrom");
  EXPECT_EQ(o.code, 3);
  EXPECT_NE(o.text.find("did you mean 'rmsnorm'"), std::string::npos) << o.text;
  const Output beside = run("--list silu rmsnrom");
  EXPECT_EQ(beside.code, 2);
  EXPECT_NE(beside.text.find("did you mean 'rmsnorm'"), std::string::npos) << beside.text;
}

TEST(Cli, BrokenManifestExits2AndNamesTheField) {
  const Output o = run("--list --manifests tests/fixtures/broken_manifests");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.text.find("unknown dtype 'f99'"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("good_kernel"), std::string::npos) << "the valid kernel still lists: " << o.text;
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(run("--help").code, 0);
  const Output v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.text.find("hkcheck "), std::string::npos);
}

}  // namespace
}  // namespace hk
