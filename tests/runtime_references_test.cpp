// References compiled at run time: a new file in a folder is found, built into a library, cached
// by content, and called through a Context; a file that does not compile costs only its own
// references, and a name defined twice is reported with both files.
#include "refs/runtime_references.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace hk {
namespace {

const char* kScale = R"(#include "reference.h"
// HK_REFERENCE(commented_out) is not a reference
HK_REFERENCE(scale_by_three) { ctx.matrix("out") = 3.0 * ctx.matrix("x"); }
HK_REFERENCE(add_one) { for (double& v : ctx.tensor("out").data) v = v + 1; }
)";

TEST(RuntimeReferences, FindsNamesButNotInComments) {
  EXPECT_EQ(reference_names_in(kScale), (std::vector<std::string>{"scale_by_three", "add_one"}));
}

TEST(RuntimeReferences, ANewReferenceIsBuiltCachedAndRuns) {
  test::TempDir project, cache;
  const std::string file = project.write("refs/mine.cpp", kScale);
  const ReferenceIndex idx = scan_references({project.path() + "/refs"}, {});
  ASSERT_TRUE(idx.errors.empty()) << idx.errors.at(0);
  ASSERT_EQ(idx.file_of.count("scale_by_three"), 1u);
  const ReferenceLibrary lib = build_reference_library(idx.file_of.at("scale_by_three"), {cache.path()});
  ASSERT_TRUE(lib.ok) << lib.log;
  EXPECT_FALSE(lib.cached);
  const ReferenceLibrary again = build_reference_library(file, {cache.path()});
  EXPECT_TRUE(again.ok && again.cached) << "the same content is not compiled twice";
  EXPECT_EQ(again.path, lib.path);

  ref::Context ctx;
  ctx.tensors["x"] = ref::Tensor{"x", "f32", {2, 2}, {1.5, -2, 0.25, 4}};
  ctx.tensors["out"] = ref::Tensor{"out", "f32", {2, 2}, {0, 0, 0, 0}};
  (*load_reference(lib.path, "scale_by_three"))(ctx);
  EXPECT_EQ(ctx.tensors["out"].data, (std::vector<double>{4.5, -6, 0.75, 12}));
  EXPECT_THROW(load_reference(lib.path, "no_such"), std::runtime_error);

  project.write("refs/mine.cpp", std::string(kScale) + "// edited\n");
  EXPECT_FALSE(build_reference_library(file, {cache.path()}).cached) << "an edited file is compiled again";
}

TEST(RuntimeReferences, ABrokenFileCostsOnlyItsOwnReferences) {
  test::TempDir project, cache;
  const std::string good = project.write("good.cpp", kScale);
  const std::string bad = project.write("bad.cpp", "#include \"reference.h\"\nHK_REFERENCE(broken) { ctx.matrix(\"out\") = oops; }\n");
  const auto libs = build_reference_libraries({bad, good}, {cache.path(), "", 2});
  ASSERT_EQ(libs.size(), 2u);
  EXPECT_FALSE(libs[0].ok);
  EXPECT_NE(libs[0].log.find("bad.cpp:2"), std::string::npos) << libs[0].log;
  EXPECT_NE(libs[0].log.find("oops"), std::string::npos) << libs[0].log;
  EXPECT_TRUE(libs[1].ok) << libs[1].log;
}

TEST(RuntimeReferences, ANameDefinedTwiceNamesBothFiles) {
  test::TempDir a, b;
  a.write("one.cpp", kScale);
  b.write("two.cpp", "#include \"reference.h\"\nHK_REFERENCE(add_one) {}\n");
  const ReferenceIndex idx = scan_references({a.path(), b.path()}, {});
  ASSERT_EQ(idx.errors.size(), 1u);
  EXPECT_NE(idx.errors[0].find("'add_one' is defined in"), std::string::npos) << idx.errors[0];
  EXPECT_NE(idx.errors[0].find("two.cpp"), std::string::npos) << idx.errors[0];
}

}  // namespace
}  // namespace hk
