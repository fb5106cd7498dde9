// Caches nothing can substitute: every entry is checked against the seal written when it was
// made (a damaged one is made again, with a note, never used), a compile is bounded in time and
// leaves no process behind, and the references are the project's own.
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <filesystem>
#include <memory>
#include <gtest/gtest.h>
#include <thread>

#include "backends/host/bounded_command.h"
#include "backends/host/host_compiler.h"
#include "backends/host/host_prelude.h"
#include "backends/host/precompiled_header.h"
#include "platform/backend.h"
#include "compile/cache_seal.h"
#include "process/interrupt.h"
#include "select/project.h"
#include "refs/runtime_references.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A reference named name that scales by factor. Each library of this test program gets a name of
// its own: the program exports the reference registry, which every library it loads then shares.
std::string scale_reference(const std::string& name, double factor) {
  return "#include \"reference.h\"\nHK_REFERENCE(" + name + ") { ctx.matrix(\"out\") = " + std::to_string(factor) +
         " * ctx.matrix(\"x\"); }\n";
}

double scaled_one(const std::string& library, const std::string& name) {
  ref::Context ctx;
  ctx.tensors["x"] = ref::Tensor{"x", "f32", {1, 1}, {1}};
  ctx.tensors["out"] = ref::Tensor{"out", "f32", {1, 1}, {0}};
  (*load_reference(library, name))(ctx);
  return ctx.tensors["out"].data.at(0);
}

// One cache for the tests that leave its reference runtime alone, kept in the build folder: the
// object every library links is compiled once, not once per test.
std::string shared_cache() { return (fs::path(HKCHECK_PATH).parent_path() / "cache-trust-test-cache").string(); }

bool has_note(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// Processes whose command line holds text (a compiler working on a file of this test).
std::vector<pid_t> processes_naming(const std::string& text) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = test::slurp(e.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    const pid_t pid = std::stoi(name);
    if (cmdline.find(text) != std::string::npos && pid != getpid() && !test::process_gone(pid)) found.push_back(pid);
  }
  return found;
}

TEST(CacheSeal, AFileMatchesItsSealUntilItChanges) {
  test::TempDir dir;
  const std::string file = dir.write("entry.so", std::string(100000, 'a'));
  EXPECT_NE(seal_mismatch(file).find("no readable seal"), std::string::npos);
  std::string err;
  ASSERT_TRUE(write_seal(file, file, &err)) << err;
  EXPECT_EQ(seal_mismatch(file), "");
  fs::resize_file(file, 50000);
  EXPECT_NE(seal_mismatch(file).find("50000 bytes where its seal says 100000"), std::string::npos) << seal_mismatch(file);
  dir.write("entry.so", std::string(99999, 'a') + "b");
  EXPECT_NE(seal_mismatch(file).find("content differs"), std::string::npos) << seal_mismatch(file);
  ASSERT_TRUE(write_seal(file, file, &err)) << err;
  const std::string other = dir.path() + "/other.so";
  fs::copy_file(file, other);
  fs::copy_file(seal_path(file), seal_path(other));
  EXPECT_NE(seal_mismatch(other).find("for another entry, entry.so"), std::string::npos) << "a sealed pair under another name";
  dir.write("entry.so.seal", "{\"schema\": \"hkcheck-seal\"}");
  EXPECT_NE(seal_mismatch(file).find("no readable seal"), std::string::npos);
}

// A truncated library was "cached" and then a SIGBUS in every worker that mapped it.
TEST(ReferenceCache, ATruncatedLibraryIsBuiltAgainWithANote) {
  test::TempDir project;
  const std::string file = project.write("truncated.cpp", scale_reference("trust_truncated", 3));
  const ReferenceLibrary lib = build_reference_library(file, {shared_cache()});
  ASSERT_TRUE(lib.ok) << lib.log;
  fs::resize_file(lib.path, fs::file_size(lib.path) / 2);
  const ReferenceLibrary again = build_reference_library(file, {shared_cache()});
  ASSERT_FALSE(again.cached) << "a truncated library must not be used";
  ASSERT_TRUE(again.ok) << again.log;
  EXPECT_TRUE(has_note(again.notes, "was damaged")) << joined(again.notes);
  EXPECT_EQ(scaled_one(again.path, "trust_truncated"), 3);
}

// Another reference's library put in place of this one's would decide the verdict. (Both files
// are written first: every source of the folder is part of a library's key.)
TEST(ReferenceCache, ALibraryOfOtherContentIsBuiltAgain) {
  test::TempDir project;
  const std::string three_cpp = project.write("three.cpp", scale_reference("trust_swapped", 3));
  const std::string two_cpp = project.write("two.cpp", scale_reference("trust_swapped", 2));
  const ReferenceLibrary three = build_reference_library(three_cpp, {shared_cache()});
  const ReferenceLibrary two = build_reference_library(two_cpp, {shared_cache()});
  ASSERT_TRUE(three.ok && two.ok) << three.log << two.log;
  fs::copy_file(two.path, three.path, fs::copy_options::overwrite_existing);
  const ReferenceLibrary again = build_reference_library(three_cpp, {shared_cache()});
  ASSERT_EQ(again.path, three.path);
  EXPECT_FALSE(again.cached);
  EXPECT_TRUE(has_note(again.notes, "its content differs from its seal") || has_note(again.notes, "bytes where")) << joined(again.notes);
  EXPECT_EQ(scaled_one(again.path, "trust_swapped"), 3);
}

// The worker checks what it loads: a library changed after the run built it is an error of the
// case, never loaded (nor a SIGBUS).
TEST(ReferenceCache, ALibraryChangedAfterItWasBuiltIsNotLoaded) {
  test::TempDir project;
  const ReferenceLibrary lib = build_reference_library(project.write("changed.cpp", scale_reference("trust_changed", 5)), {shared_cache()});
  ASSERT_TRUE(lib.ok) << lib.log;
  fs::resize_file(lib.path, fs::file_size(lib.path) / 2);
  try {
    scaled_one(lib.path, "trust_changed");
    ADD_FAILURE() << "a truncated library was loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
  }
}

// Every library links the reference runtime's object: a truncated one failed every new build.
TEST(ReferenceCache, ADamagedRuntimeObjectIsBuiltAgain) {
  test::TempDir project, cache;
  ASSERT_TRUE(build_reference_library(project.write("first.cpp", scale_reference("trust_first", 3)), {cache.path()}).ok);
  int damaged = 0;
  for (const auto& e : fs::directory_iterator(cache.path() + "/references"))
    if (e.path().extension() == ".o") fs::resize_file(e.path(), 10), ++damaged;
  ASSERT_EQ(damaged, 1);
  const ReferenceLibrary second = build_reference_library(project.write("second.cpp", scale_reference("trust_second", 4)), {cache.path()});
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_TRUE(has_note(second.notes, "reference runtime object")) << joined(second.notes);
  EXPECT_EQ(scaled_one(second.path, "trust_second"), 4);
}

// g++ fails every compile that force-includes a header whose .gch is truncated.
TEST(PrecompiledHeader, ADamagedOneIsMadeAgain) {
  const host::CompilerInfo cxx = host::find_compiler();
  if (host::is_clang(cxx)) GTEST_SKIP() << "clang takes no .gch";
  test::TempDir dir;
  const std::string header = dir.write("h.h", "#include <vector>\ninline int answer() { return 42; }\n");
  const std::string main = dir.write("m.cpp", "int main() { return answer() == 42 ? 0 : 1; }\n");
  ASSERT_TRUE(host::precompile_header(cxx, {"-std=c++17"}, header));
  fs::resize_file(header + ".gch", 5000);
  take_cache_repairs();
  ASSERT_TRUE(host::precompile_header(cxx, {"-std=c++17"}, header));
  EXPECT_EQ(seal_mismatch(header + ".gch"), "");
  EXPECT_TRUE(has_note(take_cache_repairs(), "precompiled header"));
  const host::CommandRun r = host::run_command({cxx.path, "-std=c++17", "-include", header, main, "-o", dir.path() + "/m"}, dir.path() + "/log");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The host prelude in the cache is checked once per process: run it in fresh ones.
TEST(HostPrelude, AnEditedPreludeFileIsWrittenAgain) {
  const host::CompilerInfo cxx = host::find_compiler();
  test::TempDir cache;
  const std::vector<std::string> flags = {"-std=c++17", "-fPIC", "-DHK_BACKEND_HOST=1", "-DHK_HOST_WARP_SIZE=32"};
  std::string expected;
  for (const auto& [name, text] : prelude_headers("host"))
    if (name == "hk_host.h") expected = text;
  ASSERT_FALSE(expected.empty());
  auto in_a_child = [&](bool expect_repair) {
    const pid_t child = fork();
    if (child == 0) {
      const std::string include = host::cached_prelude_folder(cxx, flags, cache.path());
      const bool restored = !include.empty() && test::slurp(include + "/hk_host.h") == expected;
      _exit(restored && take_cache_repairs().empty() != expect_repair ? 0 : 1);
    }
    int st = 0;
    waitpid(child, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
  };
  ASSERT_TRUE(in_a_child(false));
  int edited = 0;
  for (const auto& e : fs::recursive_directory_iterator(cache.path()))
    if (e.path().filename() == "hk_host.h") {
      std::ofstream(e.path(), std::ios::app) << "\n#error edited in the cache\n";
      ++edited;
    }
  ASSERT_EQ(edited, 1);
  EXPECT_TRUE(in_a_child(true)) << "the edited prelude is written again, and said";
}

// A shell's child stands for cc1plus, the compiler driver's child.
const std::string kShellWithAChild = "sleep 30 & echo $! > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"; wait";

pid_t wait_for_pid(const std::string& pid_file) {
  std::string text;
  for (int i = 0; i < 500 && text.empty(); ++i, usleep(10000)) text = test::slurp(pid_file);
  return text.empty() ? -1 : std::stoi(text);
}

TEST(BoundedCommand, ACommandsChildDiesWithTheProcessThatStartedIt) {
  test::TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  const pid_t starter = fork();
  if (starter == 0) {
    host::run_bounded({"sh", "-c", kShellWithAChild, pid_file}, dir.path() + "/log", 0);
    _exit(0);
  }
  const pid_t grandchild = wait_for_pid(pid_file);
  ASSERT_GT(grandchild, 0) << "the command never started";
  kill(starter, SIGKILL);
  waitpid(starter, nullptr, 0);
  const bool gone = test::gone_within(grandchild, 3000);
  EXPECT_TRUE(gone) << "the command's child outlived the process that started it";
  if (!gone) kill(grandchild, SIGKILL);
}

TEST(BoundedCommand, ACommandPastItsLimitIsStoppedWithItsChildren) {
  test::TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  const auto t0 = Clock::now();
  const host::CommandRun r = host::run_bounded({"sh", "-c", kShellWithAChild, pid_file}, dir.path() + "/log", 0.5);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10);
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(host::stopped_because(r, 0.5).find("longer than 0.5 s"), std::string::npos);
  const pid_t grandchild = wait_for_pid(pid_file);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(test::gone_within(grandchild, 3000));
}

TEST(BoundedCommand, AnInterruptedRunStopsIt) {
  test::TempDir dir;
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_interrupt(SIGINT);
  });
  const auto t0 = Clock::now();
  const host::CommandRun r = host::run_bounded({"sleep", "30"}, dir.path() + "/log", 0);
  ctrl_c.join();
  request_interrupt(0);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10);
  EXPECT_EQ(r.interrupted_by, SIGINT);
  EXPECT_NE(host::stopped_because(r, 0).find("interrupted by SIGINT"), std::string::npos);
}

// A command started while another thread holds a cache entry's lock does not keep the lock: once
// that thread lets go, the entry is free although the command still runs.
TEST(BoundedCommand, ACommandKeepsNoLockItsParentHeldWhenItStarted) {
  test::TempDir dir;
  const std::string entry = dir.path() + "/entry";
  auto held = std::make_unique<CacheEntryLock>(entry);
  std::thread command([&] { host::run_bounded({"sleep", "3"}, dir.path() + "/log", 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the command is running
  held.reset();
  const int fd = ::open((entry + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << "the entry stayed locked while the command ran";
  ::close(fd);
  command.join();
}

// A reference that makes the compiler wait forever (an #include of a FIFO no one writes).
TEST(ReferenceBuild, ACompileThatNeverEndsIsStoppedAndNamesTheFile) {
  test::TempDir project;
  // Under root the compiler runs as its own user (compile_user.h), which may open what others may.
  fs::permissions(project.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::replace);
  const std::string fifo = project.path() + "/never.h";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::string file = project.write("forever.cpp", "#include \"" + fifo + "\"\n#include \"reference.h\"\nHK_REFERENCE(forever) {}\n");
  // The object every library links is there first, built without a limit (its compile alone can
  // take seconds on a loaded machine): a library of a fixed file, cached after the first time.
  const std::string warm = shared_cache() + "/warm/warm.cpp";
  fs::create_directories(fs::path(warm).parent_path());
  std::ofstream(warm) << scale_reference("trust_warm", 1);
  ASSERT_TRUE(build_reference_library(warm, {shared_cache()}).ok);
  const auto t0 = Clock::now();
  const ReferenceLibrary lib = build_reference_library(file, {shared_cache(), "", 1, 2.0});
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 30);
  EXPECT_FALSE(lib.ok);
  EXPECT_NE(lib.log.find(file), std::string::npos) << lib.log;
  EXPECT_NE(lib.log.find("took longer than 2 s"), std::string::npos) << lib.log;
  std::vector<pid_t> left;
  for (int i = 0; i < 300 && !(left = processes_naming(file)).empty(); ++i) usleep(10000);
  EXPECT_TRUE(left.empty()) << left.size() << " compiler process(es) left, e.g. " << left.front();
  for (pid_t p : left) kill(p, SIGKILL);
}

const char* kAddOne = "#include \"reference.h\"\nHK_REFERENCE(add_one) { for (double& v : ctx.tensor(\"out\").data) v += 1; }\n";

TEST(References, TheProjectsReferenceOverridesTheBuiltInOneWithANote) {
  test::TempDir builtin, project;
  builtin.write("basic.cpp", std::string(kAddOne) + "HK_REFERENCE(keep_me) {}\n");
  const std::string mine = project.write("mine.cpp", kAddOne);
  const ReferenceIndex idx = scan_references({builtin.path(), project.path()}, {}, builtin.path());
  EXPECT_TRUE(idx.errors.empty()) << joined(idx.errors);
  EXPECT_EQ(idx.file_of.at("add_one"), fs::weakly_canonical(mine).string());
  EXPECT_EQ(idx.file_of.at("keep_me"), fs::weakly_canonical(builtin.path() + "/basic.cpp").string());
  ASSERT_EQ(idx.notes.count("add_one"), 1u);
  EXPECT_NE(idx.notes.at("add_one").find("overrides the built-in one"), std::string::npos) << idx.notes.at("add_one");

  project.write("again.cpp", kAddOne);
  const ReferenceIndex twice = scan_references({builtin.path(), project.path()}, {}, builtin.path());
  EXPECT_EQ(twice.errors.size(), 1u) << "two of the project's own files: still an error";
}

// Another checkout of hkcheck (its references/ holds reference.h): its references only, never
// each one twice with those of the checkout this binary was built from.
TEST(References, AnotherCheckoutsReferencesReplaceTheBuiltInOnes) {
  test::TempDir checkout;
  fs::copy(builtin_references_dir(), checkout.path() + "/references", fs::copy_options::recursive);
  LoadedManifests none;
  const ReferenceIndex idx = find_references(none, ProjectPaths{checkout.path(), checkout.path() + "/manifests", checkout.path() + "/references"});
  EXPECT_TRUE(idx.errors.empty()) << idx.errors.size() << " errors, e.g. " << idx.errors.front();
  EXPECT_TRUE(none.errors.empty());
  EXPECT_EQ(idx.runtime, checkout.path() + "/references");
  ASSERT_EQ(idx.file_of.count("softmax"), 1u);
  EXPECT_EQ(fs::path(idx.file_of.at("softmax")).parent_path(), fs::weakly_canonical(checkout.path() + "/references"));
}

}  // namespace
}  // namespace hk
