// The compile cache serves the same project in another folder (CI clones it into a new one each
// run and keeps only the cache): paths inside the project's root count relative to it, the
// headers' contents count wherever they lie, and a kept log names the reader's folder.
#include "select/root_relative.h"

#include <gtest/gtest.h>

#include "compile/compile_cache.h"
#include "test_util.h"

namespace hk {
namespace {

TEST(RootRelative, PathsInsideTheRootAreRelativeAndTheRestAbsolute) {
  const RootRelative a("/clones/a/"), b("/clones/b");
  EXPECT_EQ(a.path("/clones/a/kernels/../kernels/k.cu"), b.path("/clones/b/kernels/k.cu"));
  EXPECT_EQ(a.option("-I/clones/a/include"), b.option("-I/clones/b/include"));
  EXPECT_EQ(a.path("/clones/a"), b.path("/clones/b/"));
  EXPECT_NE(a.path("/clones/a/kernels/k.cu"), a.path("/clones/a/kernels/j.cu"));
  EXPECT_EQ(a.path("/usr/local/cuda/include"), "/usr/local/cuda/include") << "outside the root: as it is";
  EXPECT_EQ(a.path("/clones/ab/k.cu"), "/clones/ab/k.cu") << "a folder whose name starts like the root's is outside it";
  EXPECT_EQ(a.option("-DNAME=/clones/a/x"), b.option("-DNAME=/clones/b/x"));
  EXPECT_EQ(RootRelative("").path("/clones/a/k.cu"), "/clones/a/k.cu");
}

TEST(RootRelative, KeptTextNamesTheReadersFolder) {
  const RootRelative a("/clones/a"), b("/clones/b");
  const std::string log = "/clones/a/kernels/k.cu:3: warning: x\nIn file included from /clones/ab/h.h";
  EXPECT_EQ(b.with_root(a.without_root(log)), "/clones/b/kernels/k.cu:3: warning: x\nIn file included from /clones/ab/h.h");
  EXPECT_EQ(a.with_root(a.without_root(log)), log);
}

// Two copies of one project, a and b, each with kernels/k.cu and kernels/common.cuh.
struct TwoClones : ::testing::Test {
  test::TempDir cache, a, b;
  bool cached = false;
  int compiles = 0;
  CompileCache::CompileFn compile = [this](const CompileRequest& r) {
    ++compiles;
    return CompileOutput{true, "binary", r.source_name + ":1: warning: kept in the log", {{"k", "k"}}, {}};
  };
  void SetUp() override {
    for (const test::TempDir* d : {&a, &b}) d->write("kernels/common.cuh", "#define SCALE 2\n");
  }
  CompileOutput get(const test::TempDir& clone) {
    const std::string kernels = clone.path() + "/kernels";
    const CompileRequest q{"#include \"common.cuh\"\n", kernels + "/k.cu", {"-DN=4", "-I" + kernels}, {"k"}};
    return CompileCache(cache.path(), clone.path()).get("compiler", "sim", compile, q, &cached);
  }
};

TEST_F(TwoClones, TheCopyReadsTheCompileBackWithItsOwnPathsInTheLog) {
  get(a);
  ASSERT_FALSE(cached);
  const CompileOutput out = get(b);
  EXPECT_TRUE(cached) << "the same project in another folder is the same compile";
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(out.log, b.path() + "/kernels/k.cu:1: warning: kept in the log");
  get(a);
  EXPECT_TRUE(cached);
  EXPECT_EQ(compiles, 1);
}

TEST_F(TwoClones, AHeaderChangedInTheCopyIsCompiledAgain) {
  get(a);
  b.write("kernels/common.cuh", "#define SCALE 3\n");
  get(b);
  EXPECT_FALSE(cached);
  EXPECT_EQ(compiles, 2);
}

}  // namespace
}  // namespace hk
