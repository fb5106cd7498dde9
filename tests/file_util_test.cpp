// Files inside a run's results folder: written whole, with the mode asked for, and never through
// a symbolic link planted there (what it points at, elsewhere, stays as it was).
#include "util/file_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/out_lock.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using test::slurp;

TEST(FileUtil, AtomicWriteReplacesALinkInsteadOfWritingThroughIt) {
  test::TempDir dir;
  const std::string victim = dir.write("elsewhere/precious.txt", "precious\n");
  fs::create_directories(dir.path() + "/out");
  fs::create_symlink(victim, dir.path() + "/out/test_results.md");
  fs::create_symlink(victim, temporary_beside(dir.path() + "/out/test_results.json"));  // planted at the temporary's name
  std::string err;
  ASSERT_TRUE(write_file_atomic(dir.path() + "/out/test_results.md", "report\n", &err)) << err;
  ASSERT_TRUE(write_file_atomic(dir.path() + "/out/test_results.json", "{}\n", &err)) << err;
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(dir.path() + "/out/test_results.md"));
  EXPECT_EQ(slurp(dir.path() + "/out/test_results.md"), "report\n");
  EXPECT_EQ(slurp(dir.path() + "/out/test_results.json"), "{}\n");
}

TEST(FileUtil, AtomicWriteGivesTheModeAskedForWhateverTheUmask) {
  test::TempDir dir;
  std::string err;
  const mode_t old = ::umask(077);
  const bool ok = write_file_atomic(dir.path() + "/a", "x", &err, 0640);
  ::umask(old);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(file_mode(dir.path() + "/a"), 0640u);
  ASSERT_TRUE(write_file_atomic(dir.path() + "/b", "x", &err, 0600)) << err;
  EXPECT_EQ(file_mode(dir.path() + "/b"), 0600u);
  EXPECT_EQ(file_mode(dir.path() + "/missing"), std::nullopt);
}

TEST(FileUtil, RemovingAFolderInsideNeverFollowsALinkAmongItsParents) {
  test::TempDir dir;
  dir.write("elsewhere/k/case/keep.txt", "keep\n");
  dir.write("elsewhere2/case/keep.txt", "keep\n");
  fs::create_directories(dir.path() + "/out");
  fs::create_symlink(dir.path() + "/elsewhere", dir.path() + "/out/repro");
  std::string err;
  std::vector<std::string> replaced;
  ASSERT_TRUE(remove_inside(dir.path() + "/out", "repro/k/case", &err, &replaced)) << err;
  EXPECT_TRUE(fs::exists(dir.path() + "/elsewhere/k/case/keep.txt")) << "deleted through the link at repro/";
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_NE(replaced[0].find("symbolic link"), std::string::npos) << replaced[0];
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir.path() + "/out/repro")));

  fs::create_directories(dir.path() + "/out/repro");
  fs::create_symlink(dir.path() + "/elsewhere2", dir.path() + "/out/repro/k");
  replaced.clear();
  ASSERT_TRUE(make_folder_inside(dir.path() + "/out", "repro/k/case/inputs", &err, &replaced)) << err;
  EXPECT_TRUE(fs::exists(dir.path() + "/elsewhere2/case/keep.txt"));
  EXPECT_FALSE(fs::is_symlink(dir.path() + "/out/repro/k"));
  EXPECT_TRUE(fs::is_directory(dir.path() + "/out/repro/k/case/inputs"));
  EXPECT_EQ(replaced.size(), 1u);

  fs::create_symlink(dir.path() + "/elsewhere2/case", dir.path() + "/out/repro/k/last");
  ASSERT_TRUE(remove_inside(dir.path() + "/out", "repro/k/last", &err, &replaced)) << err;
  EXPECT_TRUE(fs::exists(dir.path() + "/elsewhere2/case/keep.txt")) << "a link itself is removed, not what it points at";
  EXPECT_TRUE(remove_inside(dir.path() + "/out", "nothing/here", &err, &replaced)) << "nothing to remove is no error";
  EXPECT_FALSE(fs::exists(dir.path() + "/out/nothing")) << "and makes no folder";
}

TEST(FileUtil, AFileInTheWayOfAFolderIsAnErrorNotRemoved) {
  test::TempDir dir;
  dir.write("out/repro", "a file\n");
  std::string err;
  EXPECT_FALSE(make_folder_inside(dir.path() + "/out", "repro/k", &err, nullptr));
  EXPECT_NE(err.find("repro"), std::string::npos) << err;
  EXPECT_EQ(slurp(dir.path() + "/out/repro"), "a file\n");
}

TEST(FileUtil, OpenNoFollowReplacesOrRefusesALink) {
  test::TempDir dir;
  const std::string victim = dir.write("elsewhere/lock", "precious\n");
  fs::create_symlink(victim, dir.path() + "/link");
  std::string note;
  EXPECT_EQ(open_no_follow(dir.path() + "/link", O_RDWR | O_CREAT | O_TRUNC, 0644, false, &note), -1);
  EXPECT_EQ(errno, ELOOP);
  const int fd = open_no_follow(dir.path() + "/link", O_RDWR | O_CREAT | O_TRUNC, 0644, true, &note);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_NE(note.find("symbolic link"), std::string::npos) << note;
  EXPECT_FALSE(fs::is_symlink(dir.path() + "/link"));
}

// A hard link planted in --out to a file elsewhere is neither written through nor emptied, and a
// FIFO planted there does not hang the open (the journal and the run lock open in place).
TEST(FileUtil, OpenNoFollowNeitherWritesThroughAHardLinkNorHangsOnAFifo) {
  test::TempDir dir;
  const std::string victim = dir.write("elsewhere/file", "precious\n");
  fs::create_hard_link(victim, dir.path() + "/results.jsonl");
  std::string note;
  EXPECT_EQ(open_no_follow(dir.path() + "/results.jsonl", O_WRONLY | O_CREAT | O_TRUNC, 0644, false, &note), -1);
  int fd = open_no_follow(dir.path() + "/results.jsonl", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644, true, &note);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "mine\n", 5), 5);
  ::close(fd);
  EXPECT_EQ(slurp(victim), "precious\n") << "neither emptied nor written through";
  EXPECT_NE(note.find("a hard link"), std::string::npos) << note;
  EXPECT_EQ(slurp(dir.path() + "/results.jsonl"), "mine\n");

  ASSERT_EQ(::mkfifo((dir.path() + "/.hkcheck.lock").c_str(), 0644), 0);
  note.clear();
  const auto t0 = std::chrono::steady_clock::now();
  fd = open_no_follow(dir.path() + "/.hkcheck.lock", O_RDWR | O_CREAT, 0644, true, &note);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_NE(note.find("a FIFO"), std::string::npos) << note;
  EXPECT_TRUE(fs::is_regular_file(dir.path() + "/.hkcheck.lock"));
  ASSERT_EQ(::mkfifo((dir.path() + "/fifo").c_str(), 0644), 0);
  note.clear();
  fd = open_no_follow(dir.path() + "/fifo", O_WRONLY | O_CREAT | O_APPEND, 0644, true, &note);
  ASSERT_GE(fd, 0) << "a FIFO with no reader, opened to write, fails at once and is replaced";
  ::close(fd);
  EXPECT_NE(note.find("a FIFO"), std::string::npos) << note;
}

TEST(FileUtil, TheRunLockIsNotTakenThroughALink) {
  test::TempDir dir;
  const std::string victim = dir.write("elsewhere/file", "precious\n");
  fs::create_directories(dir.path() + "/out");
  fs::create_symlink(victim, dir.path() + "/out/.hkcheck.lock");
  OutDirLock lock;
  std::string why;
  ASSERT_TRUE(lock.acquire(dir.path() + "/out", &why)) << why;
  EXPECT_EQ(slurp(victim), "precious\n") << "the lock wrote its pid through the link";
}

}  // namespace
}  // namespace hk
