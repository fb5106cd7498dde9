// What each compiler may be given from a manifest: what kernels and tile libraries pass is
// allowed, what runs, loads or writes a file of the manifest's choosing is refused, naming it.
#include "model/allowed_options.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

using Strings = std::vector<std::string>;

bool allowed(const Strings& o, const std::string& backend) { return !refused_option(o, backend); }

TEST(AllowedOptions, WhatTileLibrariesPassIsAllowed) {
  // A HipKittens kernel folder's flags, and a ThunderKittens one's.
  const Strings hipkittens = {"-std=c++20", "-w", "-O3", "-DKITTENS_CDNA4", "-I", "/opt/hk/include", "-isystem", "/opt/hk/prototype",
                              "-ffast-math", "-fgpu-flush-denormals-to-zero", "-mcumode", "--hiprtc-no-builtin-header",
                              "-mllvm", "-amdgpu-early-inline-all=true", "-Xclang", "-fno-x", "-Wno-macro-redefined"};
  EXPECT_TRUE(allowed(hipkittens, "hip")) << refused_option(hipkittens, "hip")->message;
  const Strings thunderkittens = {"-std=c++20", "-DKITTENS_HOPPER", "--expt-relaxed-constexpr", "--expt-extended-lambda", "-use_fast_math",
                                  "--fmad=false", "-lineinfo", "--ptxas-options=-v", "-I/opt/tk/include", "--include-path=/opt/tk/src",
                                  "-Wno-deprecated", "--diag-suppress=177"};
  EXPECT_TRUE(allowed(thunderkittens, "cuda")) << refused_option(thunderkittens, "cuda")->message;
  const Strings host = {"-std=c++17", "-O2", "-march=native", "-ffast-math", "-fno-strict-aliasing", "-Wall", "-Werror=shadow", "-UNDEBUG", "-g0"};
  EXPECT_TRUE(allowed(host, "host")) << refused_option(host, "host")->message;
}

TEST(AllowedOptions, WhatRunsLoadsOrWritesIsRefused) {
  for (const std::string backend : {"cuda", "hip", "host", ""}) {
    for (const std::string bad : {"-B/tmp/evil/", "-B", "-MD", "-MMD", "-MF/tmp/x.d", "-MT", "-Wp,-MD,/tmp/x", "-Wl,-rpath,/x", "-Wa,-adhln=/x",
                                  "-fplugin=/x.so", "-fpass-plugin=x.so", "-save-temps", "-save-temps=obj", "-fdump-tree-all", "-fprofile-generate",
                                  "-fprofile-dir=x", "-ftime-trace", "-specs=/x", "-o", "-wrapper", "-fuse-ld=gold", "-Xlinker", "-l", "-L/x",
                                  "--dependency-output=x", "-fcrash-diagnostics-dir=x", "-fmodules-cache-path=x", "-fstack-usage", "-x"}) {
      const auto r = refused_option({"-O2", bad}, backend);
      ASSERT_TRUE(r) << bad << " for '" << backend << "'";
      EXPECT_EQ(r->index, 1u);
      EXPECT_NE(r->message.find("'" + bad + "'"), std::string::npos) << r->message;
    }
  }
}

TEST(AllowedOptions, ClangPassThroughTakesOneHarmlessFlag) {
  EXPECT_TRUE(allowed({"-mllvm", "-amdgpu-schedule-metric-bias=10"}, "hip"));
  for (const Strings& bad : {Strings{"-Xclang", "-load", "-Xclang", "x.so"}, Strings{"-mllvm", "-info-output-file=x"}, Strings{"-mllvm"},
                             Strings{"-Xclang", "-plugin-arg-x"}, Strings{"-Xclang", "/etc/passwd"}, Strings{"-mllvm", "-stats-json"}})
    EXPECT_FALSE(allowed(bad, "hip")) << bad[0] << " " << (bad.size() > 1 ? bad[1] : "");
  EXPECT_FALSE(allowed({"-mllvm", "-amdgpu-early-inline-all"}, "cuda")) << "NVRTC is not clang";
  EXPECT_FALSE(allowed({"-Xclang", "-fno-x"}, "host")) << "nor is g++";
}

TEST(AllowedOptions, EachCompilersOwnFlagsStayItsOwn) {
  EXPECT_FALSE(allowed({"--use_fast_math"}, "host"));
  EXPECT_FALSE(allowed({"-dopt=on"}, "host")) << "g++ reads -d<letters> as dumps";
  EXPECT_TRUE(allowed({"-dopt=on"}, "cuda"));
  EXPECT_TRUE(allowed({"-dopt=on"}, "")) << "some compiler allows it";
  EXPECT_FALSE(allowed({"-arch=sm_80"}, "cuda")) << "hkcheck chooses the target";
  const auto r = refused_option({"-O2", "-B/tmp/x/"}, "host");
  ASSERT_TRUE(r);
  EXPECT_NE(r->message.find("the host C++ compiler"), std::string::npos) << r->message;
}

// The paths of include folders and files are the compiler's to read, whatever they hold.
TEST(AllowedOptions, IncludeFoldersTakeAnyPath) {
  EXPECT_TRUE(allowed({"-I", "/x/-B/", "-isystem", "-MD", "-include", "/a/b.h", "-I/y", "-isystem/z", "-iquote", "q", "-idirafter", "d"}, "host"));
}

}  // namespace
}  // namespace hk
