// The device part of kernel files written on a header-only template library (HipKittens'
// shape: a library include/ beside the kernels, constants and aliases at file scope, concepts,
// Python bindings in a header of their own): what the kernels name is kept though the parse
// cannot resolve the library's types, and the library's headers are never split.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compile/device_part.h"
#include "compile/device_part_headers.h"

namespace hk {
namespace device_part_library_test {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Library : ::testing::Test {
  fs::path root = fs::temp_directory_path() / "hk_device_part_library";
  void SetUp() override {
    fs::remove_all(root);
    fs::create_directories(root / "include" / "bindings");
    fs::create_directories(root / "include" / "random");
    fs::create_directories(root / "kernels" / "k");
    // A library header with host code of its own (a host function, a stream type it never defines).
    write("include/lib.h", "#pragma once\n#include \"tile.h\"\nnamespace lib {\nvoid host_setup(stream_t s);\n}\n");
    write("include/tile.h", "#pragma once\nnamespace lib {\ntemplate <int R, int C> struct tile { float v[R * C / 64]; };\n"
                            "template <typename T> concept tile_like = requires { T::rows; };\n}\n");
    write("include/bindings/py.h", "#pragma once\n#include <pybind11/pybind11.h>\n#include \"../lib.h\"\nnamespace lib { namespace py {\n"
                                   "template <auto F> void bind(const char* name);\n} }\n");
    write("include/random/philox.h", "#pragma once\nstruct philox_state { unsigned c[4]; };\n"
                                     "__device__ void philox_init(unsigned long long seed, philox_state* s);\n");
    // A shared helper header of an include folder, included by nothing else (cuda-samples' Common/).
    write("include/checks.h", "#pragma once\n#include <cstdio>\n__device__ inline int one() { return 1; }\n"
                              "inline void check(int e) { if (e) std::printf(\"error %d\\n\", e); }\n");
    write("kernels/k/helpers.inc", "template <typename T> __device__ void helper(T& t) { t.v[0] = 1; }\n"
                                   "void host_only_helper() { unknown_host_api(); }\n");
  }
  void write(const std::string& rel, const std::string& text) { std::ofstream(root / rel) << text; }
  DevicePart part_of(const std::string& source) {
    const std::string path = (root / "kernels" / "k" / "kernel.cpp").string();
    write("kernels/k/kernel.cpp", source);
    const std::vector<std::string> options = {"-std=c++20", "-I" + (root / "include").string()};
    DevicePart p = device_part(source, path, options, true);
    put_in_project_headers(p, path, options, true);
    return p;
  }
};

// The kernel's body does not resolve (lib's types are incomplete to the parse), and it begins
// with a macro (__global__): what it spells still keeps the file's constants, aliases, templates
// and the constants its macros name; host code and the bindings' header go.
TEST_F(Library, WhatAKernelNamesIsKeptThoughItsBodyDoesNotResolve) {
  const DevicePart p = part_of(
      "#include \"lib.h\"\n#include \"bindings/py.h\"\n#include \"random/philox.h\"\n#include \"helpers.inc\"\n"
      "constexpr int ROWS = 32;\nconstexpr int HALF = ROWS / 2;\nconstexpr int WORKERS = 4;\nconstexpr int UNUSED = 7;\n"
      "#define THREADS (WORKERS * 64)\nusing namespace lib;\nusing shape = tile<HALF, ROWS>;\n"
      "template <int D> struct globals { int d = D; };\n"
      "template <typename T> concept small = sizeof(T) < 64;\n"
      "template <int N> constexpr int twice = 2 * N;\n"
      "template <int D> __global__ __launch_bounds__(THREADS, 2) void kern(const globals<D> g) {\n"
      "  shape t; helper(t); philox_state s; philox_init(twice<3>, &s);\n  lib::tile_like auto& r = t; (void)r;\n}\n"
      "template <int D> void dispatch(globals<D> g) { kern<D><<<1, THREADS>>>(g); }\n"
      "PYBIND11_MODULE(m, x) { lib::py::bind<dispatch<64>>(\"d\"); }\n");
  for (const char* kept : {"constexpr int ROWS", "constexpr int HALF", "constexpr int WORKERS", "using shape", "struct globals",
                           "concept small", "constexpr int twice", "#include \"lib.h\"", "#include \"random/philox.h\"",
                           "__device__ void helper"})
    EXPECT_TRUE(contains(p.source, kept)) << kept << "\n" << p.source;
  for (const char* gone : {"UNUSED = 7", "void dispatch", "PYBIND11_MODULE", "bindings/py.h", "host_only_helper"})
    EXPECT_FALSE(contains(p.source, gone)) << gone << "\n" << p.source;
}

// A library's header holds host code, yet it stays an include: another of its headers includes
// it, so a split copy would come in beside the real file. A header of an include folder that
// nothing else includes is split (a shared checks header); a project header that is split
// keeps a guard, so that a second include of it is a no-op.
TEST_F(Library, ALibraryHeaderIsNeverSplitAndASplitProjectHeaderIsGuarded) {
  const DevicePart p = part_of("#include \"lib.h\"\n#include \"bindings/py.h\"\n#include \"checks.h\"\n#include \"helpers.inc\"\n"
                               "#include \"helpers.inc\"\n__global__ void kern(lib::tile<8, 8>* t) { helper(*t); t->v[1] = one(); }\n"
                               "int main() { lib::host_setup(0); check(1); }\n");
  EXPECT_TRUE(contains(p.source, "#include \"lib.h\"")) << p.source;
  EXPECT_FALSE(contains(p.source, "void host_setup")) << "lib.h was put in: " << p.source;
  EXPECT_TRUE(contains(p.source, "#ifndef HK_DEVICE_PART_")) << p.source;
  EXPECT_TRUE(contains(p.source, "__device__ void helper")) << p.source;
  EXPECT_FALSE(contains(p.source, "host_only_helper")) << p.source;
  EXPECT_FALSE(contains(p.source, "int main")) << p.source;
  EXPECT_TRUE(contains(p.source, "__device__ inline int one()")) << p.source;
  EXPECT_FALSE(contains(p.source, "inline void check")) << p.source;
}

}  // namespace device_part_library_test
}  // namespace hk
