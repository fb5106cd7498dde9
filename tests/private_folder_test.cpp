// The folders whose code hkcheck loads and runs are this user's alone: created 0700, and one that
// another user owns or may write to, or a link planted in a shared temporary folder, is refused.
#include "process/private_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

#include "refs/runtime_references.h"
#include "test_util.h"

namespace hk {
namespace {

std::string error_of(const std::string& path, bool follow_link = true) {
  try {
    ensure_private_folder(path, "--cache-dir", follow_link);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  stat(path.c_str(), &st);
  return st.st_mode & 07777;
}

TEST(PrivateFolder, AMissingOneIsMadeForThisUserAlone) {
  test::TempDir t;
  const std::string path = t.path() + "/a/cache";
  EXPECT_EQ(error_of(path), "");
  EXPECT_EQ(mode_of(path), 0700u);
  EXPECT_EQ(error_of(path), "") << "and taken again";
}

TEST(PrivateFolder, OneOthersMayWriteToIsRefused) {
  test::TempDir t;
  const std::string path = t.path() + "/cache";
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(chmod(path.c_str(), 0777), 0);
  const std::string e = error_of(path);
  EXPECT_NE(e.find("--cache-dir " + path + ": its group or others can write to it (mode 0777)"), std::string::npos) << e;
  EXPECT_NE(e.find("chmod go-w"), std::string::npos) << "it says how to mend it";
}

TEST(PrivateFolder, ALinkIsRefusedWhereItsNameIsEveryones) {
  test::TempDir t;
  const std::string mine = t.path() + "/mine", link = t.path() + "/link";
  ASSERT_EQ(mkdir(mine.c_str(), 0700), 0);
  std::filesystem::create_directory_symlink(mine, link);
  EXPECT_EQ(error_of(link, true), "") << "--cache-dir may be a link to a folder of one's own";
  EXPECT_NE(error_of(link, false).find("but a link"), std::string::npos);
  std::filesystem::create_symlink(t.path() + "/nowhere", t.path() + "/dangling");
  EXPECT_NE(error_of(t.path() + "/dangling", false), "");
}

// The attack: a kernel running as nobody makes $TMPDIR/hkcheck-references-0 before a root run
// without a cache; that run must not build into, or load from, a folder nobody controls.
TEST(PrivateFolder, AReferenceFolderAnotherUserMadeIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user";
  test::TempDir tmp;
  const std::string planted = tmp.path() + "/hkcheck-references-0";
  ASSERT_EQ(mkdir(planted.c_str(), 0777), 0);
  ASSERT_EQ(chown(planted.c_str(), 65534, 65534), 0);
  EXPECT_NE(error_of(planted).find("owned by uid 65534"), std::string::npos) << error_of(planted);

  const char* was = std::getenv("TMPDIR");
  const std::string saved = was ? was : "";
  setenv("TMPDIR", tmp.path().c_str(), 1);
  const std::string ref = tmp.write("refs/r.cpp", "#include \"reference.h\"\nHK_REFERENCE(r) {}\n");
  const ReferenceLibrary lib = build_reference_library(ref, {""});
  if (was) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
  EXPECT_FALSE(lib.ok);
  EXPECT_NE(lib.log.find("the temporary reference-library folder " + planted + ": owned by uid 65534"), std::string::npos) << lib.log;
  EXPECT_TRUE(std::filesystem::is_empty(planted)) << "nothing was built into it";
}

}  // namespace
}  // namespace hk
