// Per-target "defines" and "options", options with separate arguments, and kernels with a file
// for one vendor only (docs/manifest.md, "Per-target settings" and "Options").
#include "model/compile_target.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/case_plan.h"
#include "model/plan_case.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using Strings = std::vector<std::string>;
using Defines = std::map<std::string, std::string>;

json kernel(const std::string& name = "k") {
  json k = json::parse(R"J({
    "source": "k.cu", "entry": "copy", "reference": "copy",
    "defines": {"T": "$dtype"},
    "params": {"n": 8, "dtype": "f32"},
    "cases": [{"name": "small", "params": {}}],
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out"}],
    "args": ["out", "x"],
    "launch": {"grid": [1], "block": ["n"]}
  })J");
  k["name"] = name;
  return k;
}

struct ManifestTargets : ::testing::Test {
  test::TempDir dir;
  void SetUp() override {
    dir.write("k.cu", "\n");
    dir.write("k.hip", "\n");
    dir.write("inc/a.h", "\n");
    dir.write("pre.h", "\n");
  }
  ManifestLoad load(const std::vector<json>& kernels) {
    return load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", kernels}}.dump()));
  }
  KernelSpec one(const json& k) {
    ManifestLoad m = load({k});
    EXPECT_TRUE(m.errors.empty()) << m.errors.at(0);
    return m.kernels.empty() ? KernelSpec{} : m.kernels[0];
  }
  std::string error_of(const json& k) {
    const ManifestLoad m = load({k});
    EXPECT_EQ(m.errors.size(), 1u);
    return m.errors.empty() ? "" : m.errors[0];
  }
  static KernelSpec for_target(KernelSpec k, const CompileTarget& t) {
    apply_compile_target(k, t);
    return k;
  }
};

const CompileTarget kH100{"sm_90", "cuda", "nvrtc"}, kMi325x{"gfx942", "hip", "hiprtc"}, kMi355x{"gfx950", "hip", "hiprtc"},
    kHostMi325x{"gfx942", "hip", "host"}, kHostH100{"sm_90", "cuda", "host"};

TEST(SectionKeys, NameAllAVendorACompilerOrATarget) {
  EXPECT_EQ(section_kind("all"), SectionKind::all);
  EXPECT_EQ(section_kind("hip"), SectionKind::vendor);
  EXPECT_EQ(section_kind("hiprtc"), SectionKind::compiler);
  EXPECT_EQ(section_kind("host"), SectionKind::compiler);
  for (const char* t : {"sm_90", "sm_90a", "sm_100", "gfx90a", "gfx942", "gfx1100"}) EXPECT_EQ(section_kind(t), SectionKind::target) << t;
  for (const char* t : {"sm_", "sm_a", "sm90", "gfx", "gfx94g", "GFX942", "rocm", "gfx942:xnack-", ""}) EXPECT_FALSE(section_kind(t)) << t;
  const CompileTarget mi325x = run_target("host", "gfx942", "");  // the profile's arch and vendor
  EXPECT_EQ(mi325x.arch, "gfx942");
  EXPECT_EQ(mi325x.vendor, "hip");
  EXPECT_EQ(run_target("cuda", "sm_90", "").compiler, "nvrtc");
  const CompileTarget host = run_target("host", "sm_90", "hip");  // --source hip under the h100 profile
  EXPECT_EQ(host.vendor, "hip");
  EXPECT_EQ(host.compiler, "host");
  EXPECT_EQ(compile_only_target("gfx950").compiler, "hiprtc");
  EXPECT_EQ(compile_only_target("sm_100").vendor, "cuda");
}

// The most specific section wins a define: target over compiler over vendor over all; options
// add up in that order.
TEST_F(ManifestTargets, DefinesAndOptionsPerTarget) {
  json k = kernel();
  k["defines"] = json::parse(R"({"T": "$dtype", "X": 1, "hip": {"X": 2, "WAVE": 64}, "cuda": {"WAVE": 32},
                                "hiprtc": {"X": 3}, "gfx942": {"X": 4, "KITTENS_CDNA3": 1}, "gfx950": {"KITTENS_CDNA4": 1}})");
  k["options"] = json::parse(R"({"all": ["-O3"], "hip": ["-ffast-math"], "hiprtc": ["-Xclang", "-fno-x"], "host": ["-g0"], "gfx942": ["-DLAST"]})");
  const KernelSpec spec = one(k);
  EXPECT_EQ(spec.defines, (Defines{{"T", "$dtype"}, {"X", "1"}})) << "the \"all\" section until a target is picked";
  EXPECT_EQ(spec.compile_options, (Strings{"-O3"}));

  const KernelSpec mi325x = for_target(spec, kMi325x);
  EXPECT_EQ(mi325x.defines, (Defines{{"T", "$dtype"}, {"X", "4"}, {"WAVE", "64"}, {"KITTENS_CDNA3", "1"}}));
  EXPECT_EQ(mi325x.compile_options, (Strings{"-O3", "-ffast-math", "-Xclang", "-fno-x", "-DLAST"}));
  EXPECT_EQ(for_target(spec, kMi355x).defines, (Defines{{"T", "$dtype"}, {"X", "3"}, {"WAVE", "64"}, {"KITTENS_CDNA4", "1"}}));
  const KernelSpec host = for_target(spec, kHostMi325x);
  EXPECT_EQ(host.defines.at("X"), "4");
  EXPECT_EQ(host.compile_options, (Strings{"-O3", "-ffast-math", "-g0", "-DLAST"})) << "hipRTC's options stay off the host compiler";
  const KernelSpec h100 = for_target(spec, kH100);
  EXPECT_EQ(h100.defines, (Defines{{"T", "$dtype"}, {"X", "1"}, {"WAVE", "32"}}));
  EXPECT_EQ(h100.compile_options, (Strings{"-O3"}));
  EXPECT_EQ(for_target(for_target(spec, kMi325x), kH100).defines, h100.defines) << "a second target starts again from the sections";

  const CasePlan plan = plan_case(mi325x, mi325x.cases[0]);
  EXPECT_EQ(define_options(plan), (Strings{"-DKITTENS_CDNA3=1", "-DT=f32", "-DWAVE=64", "-DX=4"}));
}

TEST_F(ManifestTargets, TodaysFormsStayValid) {
  json k = kernel();
  k["options"] = {"-O3", "-DA=1"};
  const KernelSpec spec = one(k);
  EXPECT_EQ(for_target(spec, kMi325x).compile_options, (Strings{"-O3", "-DA=1"}));
  EXPECT_EQ(for_target(spec, kH100).defines, (Defines{{"T", "$dtype"}}));
}

TEST_F(ManifestTargets, BadSectionsNameTheFileAndField) {
  json k = kernel();
  k["defines"] = json::parse(R"({"gfx9xx": {"A": 1}})");
  EXPECT_NE(error_of(k).find("m.json: /kernels/0/defines/gfx9xx: not a section"), std::string::npos) << error_of(k);
  k["defines"] = json::parse(R"({"T": "$dtype", "all": {"T": "f32"}})");
  EXPECT_NE(error_of(k).find("/kernels/0/defines/all/T: defined twice"), std::string::npos) << error_of(k);
  k["defines"] = json::parse(R"({"gfx942": {"A": [1]}})");
  EXPECT_NE(error_of(k).find("/kernels/0/defines/gfx942/A: expected a string or a number"), std::string::npos) << error_of(k);
  k["defines"] = json::parse(R"({"gfx942": {"A": "$nope"}})");  // checked at load, not on the first gfx942 run
  EXPECT_NE(error_of(k).find("/kernels/0/defines/gfx942/A: case 'small':"), std::string::npos) << error_of(k);
  EXPECT_NE(error_of(k).find("'nope'"), std::string::npos) << error_of(k);
  k["defines"] = json::parse(R"({"hip": {"1A": 2}})");
  EXPECT_NE(error_of(k).find("/kernels/0/defines/hip/1A: not a valid macro name"), std::string::npos) << error_of(k);
  k.erase("defines");
  k["options"] = json::parse(R"({"rocm": ["-O3"]})");
  EXPECT_NE(error_of(k).find("/kernels/0/options/rocm: not a section"), std::string::npos) << error_of(k);
  k["options"] = json::parse(R"({"hip": "-O3"})");
  EXPECT_NE(error_of(k).find("/kernels/0/options/hip: expected an array of compiler options"), std::string::npos) << error_of(k);
  k["options"] = "-O3";
  EXPECT_NE(error_of(k).find("/kernels/0/options: expected an array of compiler options, or an object"), std::string::npos) << error_of(k);
}

// An option and its argument as two strings; a path is resolved against the manifest's folder.
TEST_F(ManifestTargets, OptionsWithSeparateArguments) {
  json k = kernel();
  k["options"] = {"-isystem", "inc", "-include", "pre.h", "-include", "cuda_fp16.h", "-Xclang", "-fno-x", "-I", "/usr/include", "-mllvm", "-amdgpu-early-inline-all=true"};
  const KernelSpec spec = one(k);
  const std::string here = fs::absolute(dir.path()).lexically_normal().string();
  EXPECT_EQ(spec.compile_options, (Strings{"-isystem", here + "/inc", "-include", here + "/pre.h", "-include", "cuda_fp16.h", "-Xclang",
                                           "-fno-x", "-I", "/usr/include", "-mllvm", "-amdgpu-early-inline-all=true"}));
  k["options"] = json::parse(R"({"gfx942": ["-isystem", "inc/"]})");
  EXPECT_EQ(for_target(one(k), kMi325x).compile_options, (Strings{"-isystem", here + "/inc"}));
}

TEST_F(ManifestTargets, AStrayArgumentIsAnError) {
  json k = kernel();
  k["options"] = {"-O2", "stray"};
  EXPECT_NE(error_of(k).find("m.json: /kernels/0/options/1: 'stray' is not a compiler option"), std::string::npos) << error_of(k);
  EXPECT_NE(error_of(k).find("-isystem"), std::string::npos) << "it says which options take one";
  k["options"] = {"-O2", "-isystem"};
  EXPECT_NE(error_of(k).find("/kernels/0/options/1: -isystem needs an argument"), std::string::npos) << error_of(k);
  k["options"] = {"-isystem", "missing"};
  EXPECT_NE(error_of(k).find("/kernels/0/options/1: -isystem missing: not a folder"), std::string::npos) << error_of(k);
  k["options"] = json::parse(R"({"hip": ["-isystemx", "x"]})");
  EXPECT_NE(error_of(k).find("/kernels/0/options/hip/1: 'x' is not a compiler option"), std::string::npos) << error_of(k);
  k["options"] = {"-O2", ""};
  EXPECT_NE(error_of(k).find("/kernels/0/options/1: expected a non-empty string"), std::string::npos) << error_of(k);
}

// An option that would run, load or write what it names is refused at the manifest, naming its
// place (hkcheck may run as root: -B runs the project's own `as`, -MF writes anywhere).
TEST_F(ManifestTargets, AnOptionOutsideTheAllowListIsAnError) {
  json k = kernel();
  for (const Strings& bad : {Strings{"-O2", "-B/tmp/evil/"}, Strings{"-O2", "-MD"}, Strings{"-O2", "-MF/tmp/x.d"}, Strings{"-O2", "-Wp,-MD,/tmp/x"},
                             Strings{"-O2", "-Wl,-rpath,/x"}, Strings{"-O2", "-fplugin=/x.so"}, Strings{"-O2", "-save-temps"},
                             Strings{"-O2", "-fdump-tree-all"}, Strings{"-O2", "-specs=/x"}, Strings{"-O2", "-o"}}) {
    k["options"] = bad;
    EXPECT_NE(error_of(k).find("/kernels/0/options/1: compiler option '" + bad[1] + "' is not allowed"), std::string::npos) << error_of(k);
  }
  k["options"] = json::parse(R"({"hiprtc": ["-Xclang", "-load", "-Xclang", "x.so"]})");
  EXPECT_NE(error_of(k).find("/kernels/0/options/hiprtc/1: compiler option '-Xclang -load' is not allowed"), std::string::npos) << error_of(k);
}

// A kernel with a file of one vendor is for that vendor only; "source": "k.cu" stays for both.
TEST_F(ManifestTargets, AKernelOfOneVendor) {
  json cuda_only = kernel("cuda_only"), hip_only = kernel("hip_only"), both = kernel("both");
  cuda_only["source"] = {{"cuda", "k.cu"}};
  cuda_only["entry"] = "cuda_entry";
  hip_only["source"] = {{"hip", "k.hip"}};
  ManifestLoad m = load({cuda_only, hip_only, both});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  EXPECT_TRUE(serves_vendor(m.kernels[0], "cuda"));
  EXPECT_FALSE(serves_vendor(m.kernels[0], "hip"));
  EXPECT_FALSE(serves_vendor(m.kernels[1], "cuda"));
  EXPECT_TRUE(serves_vendor(m.kernels[2], "hip"));
  EXPECT_TRUE(serves_vendor(m.kernels[2], "cuda"));
  const std::string why = not_for_vendor_message(m.kernels[0], kMi325x);
  EXPECT_NE(why.find("a CUDA file only"), std::string::npos) << why;
  EXPECT_NE(why.find("gfx942 compiles HIP files"), std::string::npos) << why;
  EXPECT_NE(not_for_vendor_message(m.kernels[0], kHostMi325x).find("--source"), std::string::npos);

  // On AMD the CUDA-only kernel adds no entry to the compile of the file it shares with "both".
  use_compile_target(m.kernels, kHostMi325x);
  EXPECT_EQ(m.kernels[2].file_entries, (Strings{"copy"}));
  use_compile_target(m.kernels, kHostH100);
  EXPECT_EQ(m.kernels[2].file_entries, (Strings{"copy", "cuda_entry"}));
  EXPECT_EQ(fs::path(m.kernels[1].source).filename(), "k.hip");
}

}  // namespace
}  // namespace hk
