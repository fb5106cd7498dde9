// The headers a compile can reach are found wherever they lie, an edit to any of them changes the
// key, and an edit to a header nothing reaches does not. The last test holds the walk to g++'s own
// dependency output over this repository's kernels and references.
#include "compile/include_closure.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

#include "util/file_util.h"
#include "test_util.h"

namespace hk {
namespace {
namespace fs = std::filesystem;

// The key of a source file compiled with options, read from disk as a compile would read it.
std::string key(const std::string& source, const std::vector<std::string>& options) {
  return include_closure_key(read_file(source, "source"), source, include_search(options), RootRelative(""));
}

// Edits name under dir, keeping what it includes, with a size of its own (a file's time may not
// move between two quick writes).
void edit(const test::TempDir& dir, const std::string& name) {
  static int n = 0;
  const std::string was = read_file(dir.path() + "/" + name, "header");
  dir.write(name, was + "#define EDITED " + std::string(static_cast<size_t>(++n), '1') + "\n");
}

struct IncludeClosure : ::testing::Test {
  test::TempDir p;
  std::string src;
  void SetUp() override {
    p.write("kernels/beside.h", "#pragma once\n#include \"nested/deep.h\"\n");
    p.write("kernels/nested/deep.h", "#define DEEP 1\n");
    p.write("attention/online_softmax.h", "#define SCALE 2\n");
    p.write("inc/lib.h", "#define LIB 1\n");
    p.write("sys/tile/tile.h", "#include <tile/detail.h>\n");
    p.write("sys/tile/detail.h", "#define DETAIL 1\n");
    p.write("inc/unused.h", "#define UNUSED 1\n");
    src = p.write("kernels/k.cu",
                  "#include \"beside.h\"\n"
                  "#  include \"../attention/online_softmax.h\"  // a comment\n"
                  "#if 0\n#include <lib.h>\n#endif\n"
                  "#include <tile/tile.h>\n#include <cuda_fp16.h>\n");
  }
  std::vector<std::string> options() const { return {"-I" + p.path() + "/kernels", "-I", p.path() + "/inc", "-isystem", p.path() + "/sys"}; }
};

TEST_F(IncludeClosure, EveryKindOfHeaderIsInTheKey) {
  const std::string text = key(src, options());
  for (const char* f : {"kernels/beside.h", "kernels/nested/deep.h", "attention/online_softmax.h", "inc/lib.h", "sys/tile/tile.h", "sys/tile/detail.h"})
    EXPECT_NE(text.find(p.path() + "/" + f + " "), std::string::npos) << f << " in\n" << text;
  EXPECT_NE(text.find("missing <cuda_fp16.h>"), std::string::npos) << "the compiler's own header, by name";
  EXPECT_EQ(text.find("unused.h"), std::string::npos) << "a header nothing includes";
  EXPECT_EQ(text.find("computed"), std::string::npos);
}

TEST_F(IncludeClosure, AnEditAnywhereItReachesChangesTheKey) {
  for (const char* f : {"kernels/beside.h", "kernels/nested/deep.h", "attention/online_softmax.h", "inc/lib.h", "sys/tile/detail.h"}) {
    const std::string before = key(src, options());
    edit(p, f);
    EXPECT_NE(key(src, options()), before) << f;
  }
  const std::string before = key(src, options());
  edit(p, "inc/unused.h");
  EXPECT_EQ(key(src, options()), before) << "a header nothing reaches is not part of the compile";
}

// A header that appears earlier on the search path is the one the compiler now reads.
TEST_F(IncludeClosure, AHeaderThatNowShadowsAnotherChangesTheKey) {
  const std::string before = key(src, options());
  p.write("kernels/lib.h", "#define LIB 2\n");
  EXPECT_NE(key(src, options()), before);
}

TEST_F(IncludeClosure, AnAbsentHeaderThatAppearsChangesTheKey) {
  p.write("kernels/probe.cu", "#if __has_include(\"config.h\")\n#endif\n");
  const std::string before = key(p.path() + "/kernels/probe.cu", options());
  EXPECT_NE(before.find("missing \"config.h\""), std::string::npos) << before;
  p.write("inc/config.h", "#define CONFIGURED 1\n");
  EXPECT_NE(key(p.path() + "/kernels/probe.cu", options()), before);
}

// #include FOO: the walk cannot tell which file, so every header of every search folder counts.
TEST_F(IncludeClosure, AComputedIncludeCountsEveryFolderItMaySearch) {
  p.write("kernels/computed.cu", "#define HEADER \"lib.h\"\n#include HEADER\n");
  const std::string before = key(p.path() + "/kernels/computed.cu", options());
  EXPECT_NE(before.find("computed"), std::string::npos);
  p.write("inc/lib.h", "#define LIB 22\n");
  EXPECT_NE(key(p.path() + "/kernels/computed.cu", options()), before);
}

TEST_F(IncludeClosure, IncludeNextCountsEveryFileOfThatName) {
  p.write("a/x.h", "#include_next <x.h>\n");
  p.write("b/x.h", "#define B 1\n");
  p.write("kernels/next.cu", "#include <x.h>\n");
  const std::string text = key(p.path() + "/kernels/next.cu", {"-I" + p.path() + "/a", "-I" + p.path() + "/b"});
  EXPECT_NE(text.find(p.path() + "/b/x.h "), std::string::npos) << text;
}

TEST_F(IncludeClosure, ACycleEnds) {
  p.write("kernels/a.h", "#include \"b.h\"\n");
  p.write("kernels/b.h", "#include \"a.h\"\n");
  p.write("kernels/cycle.cu", "#include \"a.h\"\n");
  const std::string text = key(p.path() + "/kernels/cycle.cu", {});
  EXPECT_NE(text.find("/kernels/b.h "), std::string::npos) << text;
}

TEST_F(IncludeClosure, ForcedIncludesCount) {
  const std::string forced = p.write("inc/forced.h", "#include \"lib.h\"\n");
  p.write("kernels/plain.cu", "int x;\n");
  const std::string before = key(p.path() + "/kernels/plain.cu", {"-include", forced});
  EXPECT_NE(before.find("/inc/lib.h "), std::string::npos) << before;
  EXPECT_EQ(include_search({"--pre-include=" + forced}).forced, std::vector<std::string>{forced});
}

TEST(IncludeSearch, ReadsEveryWayACompilerSpellsAFolder) {
  const IncludeSearch s = include_search({"-Ia", "-I", "b", "--include-path=c", "-isystem", "d", "-isysteme", "--system-include=f", "-iquote",
                                          "q", "-idirafter", "z", "-DX=1", "-std=c++20"});
  EXPECT_EQ(s.dirs, (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "z"})) << "-I first, then -isystem, then -idirafter";
  EXPECT_EQ(s.quote, std::vector<std::string>{"q"});
}

// What g++ says a file reads (-M), every branch g++ takes under each set of macros, restricted to
// the files inside root: each must be in the walk's key.
std::set<std::string> gxx_dependencies(const std::string& file, const std::vector<std::string>& options, const std::string& macros) {
  std::string cmd = "g++ -M -MG -x c++ -std=c++17 " + macros;
  for (const std::string& o : options) cmd += " '" + o + "'";
  cmd += " '" + file + "' 2>/dev/null";
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf;
    for (size_t n; (n = fread(buf.data(), 1, buf.size(), f)) > 0;) out.append(buf.data(), n);
    pclose(f);
  }
  std::set<std::string> deps;
  std::istringstream words(out);
  for (std::string w; words >> w;) {
    if (w == "\\" || w.back() == ':') continue;
    std::error_code ec;
    const fs::path p = fs::absolute(w).lexically_normal();
    if (fs::is_regular_file(p, ec) && p.string() != fs::absolute(file).lexically_normal().string()) deps.insert(p.string());
  }
  return deps;
}

TEST(IncludeClosureAgainstGxx, HoldsEveryHeaderGxxReadsInThisRepository) {
  const fs::path repo = REPO_DIR;
  size_t files = 0, deps = 0;
  for (const char* folder : {"kernels", "references", "examples"}) {
    for (const auto& e : fs::recursive_directory_iterator(repo / folder)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cu" && ext != ".hip" && ext != ".cpp" && ext != ".cuh")) continue;
      const std::vector<std::string> options = {"-I" + e.path().parent_path().string(), "-I" + (repo / "kernels/gemm").string(),
                                                "-I" + (repo / "references").string()};
      const std::string text = key(e.path().string(), options);
      for (const char* macros : {"", "-D__CUDACC__ -D__CUDA_ARCH__=900", "-D__HIPCC__ -D__HIP_DEVICE_COMPILE__ -D__HIP_PLATFORM_AMD__"}) {
        for (const std::string& d : gxx_dependencies(e.path().string(), options, macros)) {
          if (d.rfind(repo.string() + "/", 0) != 0) continue;  // the toolchain's own headers: keyed by its identity
          ++deps;
          EXPECT_NE(text.find(d + " "), std::string::npos) << e.path() << " reads " << d << " under '" << macros << "'";
        }
      }
      ++files;
    }
  }
  EXPECT_GT(files, 50u);
  EXPECT_GT(deps, 50u) << "g++ named too few headers for this check to mean anything";
}

}  // namespace
}  // namespace hk
