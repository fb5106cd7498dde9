// Repro folders: the tensor file format round-trips, and the one-case manifest loads and names
// the same case, so the rerun command gets the same inputs.
#include "run/repro.h"
#include "worker/repro_output.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "model/compile_target.h"
#include "model/plan_case.h"
#include "refs/generator.h"
#include "test_util.h"
#include "model/manifest_load.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::slurp;

ReproSettings repro_settings(uint64_t seed, const std::string& backend, const std::string& arch = "sm_90") {
  ReproSettings s;
  s.spec.seed = seed, s.spec.backend = backend;
  s.arch = arch, s.hkcheck_exe = "/opt/hkcheck";
  return s;
}

TEST(Repro, TensorFileRoundTrips) {
  test::TempDir dir;
  const TensorFile t{"out", DType::bf16, {2, 3}, pack(DType::bf16, {1, -2, 0.5, 3, 4, 5})};
  write_tensor_file(dir.path() + "/t.hkt", t);
  const std::string raw = slurp(dir.path() + "/t.hkt");
  EXPECT_EQ(raw.substr(0, 8), "HKTENSR1");
  const TensorFile back = read_tensor_file(dir.path() + "/t.hkt");
  EXPECT_EQ(back.name, "out");
  EXPECT_EQ(back.dtype, DType::bf16);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back.bytes, t.bytes);
  EXPECT_EQ(unpack(DType::bf16, back.bytes), (std::vector<double>{1, -2, 0.5, 3, 4, 5}));
}

TEST(Repro, TensorFileErrorsNameTheFile) {
  test::TempDir dir;
  const std::string bad = dir.write("bad.hkt", "NOTATENSOR");
  EXPECT_THROW(read_tensor_file(bad), std::runtime_error);
  write_tensor_file(dir.path() + "/short.hkt", TensorFile{"x", DType::f32, {4}, std::vector<uint8_t>(8)});
  try {
    read_tensor_file(dir.path() + "/short.hkt");
    FAIL() << "a shape that does not match the data must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("short.hkt"), std::string::npos) << e.what();
  }
}

TEST(Repro, SubdirIsSafeAndDistinct) {
  EXPECT_EQ(repro_subdir("rmsnorm", "f32_1x128"), "repro/rmsnorm/f32_1x128");
  const std::string a = repro_subdir("k", "sweep/M=7,N=1000");
  const std::string b = repro_subdir("k", "sweep_M=7_N=1000");
  EXPECT_EQ(a.find('/', 8), std::string::npos) << "no folder inside the case's: " << a;
  EXPECT_EQ(a.find(','), std::string::npos);
  EXPECT_NE(a, b);
  for (const std::string name : {"../x", "..", "."}) {
    const std::string d = repro_subdir("k", name);
    EXPECT_EQ(std::count(d.begin(), d.end(), '/'), 2) << d;
    const std::string last = d.substr(d.rfind('/') + 1);
    EXPECT_TRUE(last != ".." && last != ".") << d;
  }
}

TEST(Repro, FolderHoldsAOneCaseManifestTheSourceInputsOptionsAndCommand) {
  test::TempDir dir;
  dir.write("m/k.cu", "#include \"hkcheck.h\"\n// kernel text\n");
  const json kernel = json::parse(R"J({
    "name": "copy_kernel", "source": "k.cu", "entry": "copy", "reference": "copy",
    "defines": {"T": "$dtype"}, "params": {"n": 100, "dtype": "f32"},
    "cases": [{"name": "small", "params": {"n": 7}},
              {"sweep": {"n": [5, 9], "dtype": ["f32", "bf16"]}, "tolerance": {"out": {"atol": 0.5, "why": "test"}}}],
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}],
    "launch": {"grid": [1], "block": [32]}
  })J");
  const std::string mpath = dir.write("m/copy.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump());
  const ManifestLoad load = load_manifest(mpath);
  ASSERT_TRUE(load.errors.empty()) << load.errors[0];
  const KernelSpec& k = load.kernels.at(0);
  const CaseSpec* swept = nullptr;
  for (const CaseSpec& c : k.cases)
    if (c.name.find("bf16") != std::string::npos && c.name.find("n=9") != std::string::npos) swept = &c;
  ASSERT_NE(swept, nullptr);

  const std::string out = dir.path() + "/r";
  write_repro(out, k, *swept, repro_settings(42, "cuda"));

  const ManifestLoad again = load_manifest(out + "/manifest.json");
  ASSERT_TRUE(again.errors.empty()) << again.errors[0];
  ASSERT_EQ(again.kernels.size(), 1u);
  ASSERT_EQ(again.kernels[0].cases.size(), 1u);
  EXPECT_EQ(again.kernels[0].name, k.name);
  EXPECT_EQ(again.kernels[0].cases[0].name, swept->name);
  EXPECT_EQ(again.kernels[0].cases[0].params, swept->params);
  EXPECT_EQ(again.kernels[0].cases[0].tolerance.at("out").atol, 0.5) << "the sweep's tolerance is kept";
  EXPECT_EQ(slurp(out + "/k.cu"), slurp(k.source));

  const TensorFile x = read_tensor_file(out + "/inputs/x.hkt");
  EXPECT_EQ(x.dtype, DType::bf16);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{9}));
  const CasePlan plan = plan_case(k, *swept);
  std::vector<double> v = generate(plan.tensors[0].init, 9, tensor_seed(42, k.name, swept->name, "x"));
  for (double& e : v) e = round_to_dtype(DType::bf16, e);
  EXPECT_EQ(unpack(DType::bf16, x.bytes), v) << "the inputs are the ones the worker built";
  EXPECT_FALSE(fs::exists(out + "/inputs/out.hkt")) << "outputs are not inputs";

  const std::string opts = slurp(out + "/compile_options.txt");
  EXPECT_NE(opts.find("--gpu-architecture=sm_90\n"), std::string::npos) << opts;
  EXPECT_NE(opts.find("-DT=bf16\n"), std::string::npos) << opts;
  const std::string rerun = slurp(out + "/rerun.sh");
  EXPECT_NE(rerun.find("--seed 42"), std::string::npos) << rerun;
  EXPECT_NE(rerun.find("--isolation case"), std::string::npos) << rerun;
  EXPECT_NE(rerun.find("--manifests \"$here\""), std::string::npos) << rerun;
  EXPECT_NE(rerun.find("/opt/hkcheck"), std::string::npos) << rerun;
  EXPECT_TRUE((fs::status(out + "/rerun.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
}

// A repro folder's manifest holds the defines and options of the target that failed, written
// without sections: its rerun compiles as the run did, whatever target it runs on (rerun.sh on
// the host backend takes the default profile, say).
TEST(Repro, ManifestHoldsTheRunsTargetsDefinesAndOptions) {
  test::TempDir dir;
  dir.write("m/k.cu", "// kernel text\n");
  dir.write("m/inc/a.h", "\n");
  const json kernel = json::parse(R"J({
    "name": "copy_kernel", "source": "k.cu", "entry": "copy", "reference": "copy",
    "defines": {"T": "$dtype", "gfx942": {"CDNA": 3}, "sm_90": {"CDNA": 0}, "hip": {"WAVE": "${n}"}},
    "options": {"all": ["-O2"], "hip": ["-isystem", "inc"], "hiprtc": ["-Xclang", "-fno-x"]},
    "params": {"n": 64, "dtype": "f32"},
    "cases": [{"name": "small", "params": {}}],
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out"}],
    "args": ["out", "x"],
    "launch": {"grid": [1], "block": [32]}
  })J");
  ManifestLoad load = load_manifest(dir.write("m/copy.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump()));
  ASSERT_TRUE(load.errors.empty()) << load.errors[0];
  use_compile_target(load.kernels, run_target("host", "gfx942", ""));  // --backend host --host-profile mi325x
  const KernelSpec& k = load.kernels[0];
  const std::string out = dir.path() + "/r";
  write_repro(out, k, k.cases[0], repro_settings(1, "host", "gfx942"));

  const std::string inc = fs::absolute(dir.path() + "/m/inc").lexically_normal().string();
  const std::string opts = slurp(out + "/compile_options.txt");
  EXPECT_NE(opts.find("-DCDNA=3\n-DT=f32\n-DWAVE=64\n"), std::string::npos) << opts;
  EXPECT_NE(opts.find("-O2\n-isystem\n" + inc + "\n"), std::string::npos) << opts;
  EXPECT_EQ(opts.find("-Xclang"), std::string::npos) << "hipRTC's options are not the host compiler's: " << opts;

  ManifestLoad again = load_manifest(out + "/manifest.json");
  ASSERT_TRUE(again.errors.empty()) << again.errors[0];
  use_compile_target(again.kernels, run_target("host", "sm_90", ""));  // the rerun's default profile
  EXPECT_EQ(again.kernels[0].defines, k.defines);
  EXPECT_EQ(again.kernels[0].compile_options, k.compile_options);
}

TEST(Repro, WorkerOutputHoldsGotAndExpected) {
  test::TempDir dir;
  TensorPlan t;
  t.name = "out";
  t.dtype = DType::f16;
  t.shape = {2};
  t.numel = 2;
  write_repro_output(dir.path(), t, pack(DType::f16, {1.5, 2}), {1.5, 2.25});
  EXPECT_EQ(unpack(DType::f16, read_tensor_file(dir.path() + "/output/out.got.hkt").bytes), (std::vector<double>{1.5, 2}));
  const TensorFile e = read_tensor_file(dir.path() + "/output/out.expected.hkt");
  EXPECT_EQ(e.dtype, DType::f64);
  EXPECT_EQ(unpack(DType::f64, e.bytes), (std::vector<double>{1.5, 2.25}));
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

TEST(Repro, ACaseNameWithANewlineCannotBecomeACommandInRerunSh) {
  test::TempDir dir;
  dir.write("m/k.cu", "#include \"hkcheck.h\"\n");
  const json kernel = json::parse(R"J({
    "name": "copy_kernel", "source": "k.cu", "entry": "copy", "reference": "copy", "params": {"n": 4},
    "cases": [{"name": "x\ntouch INJECTED\n#", "params": {}}],
    "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}], "launch": {"grid": [1], "block": [32]}
  })J");
  const ManifestLoad load = load_manifest(dir.write("m/copy.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump()));
  ASSERT_TRUE(load.errors.empty()) << load.errors[0];
  const std::string out = dir.path() + "/r";
  write_repro(out, load.kernels[0], load.kernels[0].cases[0], repro_settings(1, "host"));
  const std::string rerun = slurp(out + "/rerun.sh");
  for (size_t at = 0, nl; (nl = rerun.find('\n', at)) != std::string::npos; at = nl + 1)
    EXPECT_NE(rerun.substr(at, nl - at).rfind("touch", 0), 0u) << "a line of rerun.sh starts with the injected command:\n" << rerun;
}

// rerun.sh is written from the run's RunSpec: every setting that decides the verdict comes back
// (the host profile, the tier, launches, the vendor's file, the timeout), with the case's seed.
TEST(Repro, RerunShCarriesEverySettingOfTheRun) {
  test::TempDir dir;
  dir.write("m/k.cu", "#include \"hkcheck.h\"\n");
  dir.write("refs/mine.cpp", "#include \"reference.h\"\nHK_REFERENCE(my_copy) {}\n");
  const json kernel = json::parse(R"J({
    "name": "copy_kernel", "source": "k.cu", "entry": "copy", "reference": "my_copy", "params": {"n": 4},
    "cases": [{"name": "c", "params": {}}],
    "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}], "launch": {"grid": [1], "block": [32]}
  })J");
  const ManifestLoad load = load_manifest(dir.write("m/copy.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump()));
  ASSERT_TRUE(load.errors.empty()) << load.errors[0];
  ReproSettings rs = repro_settings(7, "host");
  rs.spec.host_profile = "mi325x", rs.spec.tier = "all", rs.spec.repeat = 5, rs.spec.source_vendor = "hip", rs.spec.timeout = 12.5;
  rs.spec.time_launches = 3, rs.spec.selection.case_patterns = {"c"}, rs.spec.selection.shard = "1/2";
  rs.reference_file = dir.path() + "/refs/mine.cpp";
  const std::string out = dir.path() + "/r";
  write_repro(out, load.kernels[0], load.kernels[0].cases[0], rs);
  const std::string rerun = slurp(out + "/rerun.sh");
  for (const char* option : {" --backend host ", " --seed 7 ", " --host-profile mi325x ", " --tier all ", " --repeat 5 ", " --source hip ",
                             " --timeout 12.5 ", " --isolation case ", " --time --time-launches 3 \"$@\""})
    EXPECT_NE(rerun.find(option), std::string::npos) << option << "\n" << rerun;
  for (const char* option : {" -k ", "--shard"}) EXPECT_EQ(rerun.find(option), std::string::npos) << "the repro holds the one case\n" << rerun;
  // The project's own reference is named where it is, and the kernel's headers beside it are found.
  const json m = json::parse(slurp(out + "/manifest.json"));
  EXPECT_EQ(m["kernels"][0]["reference_source"], fs::absolute(dir.path() + "/refs/mine.cpp").lexically_normal().string());
  EXPECT_EQ(m["kernels"][0]["include_dirs"], json({fs::absolute(dir.path() + "/m").lexically_normal().string()}));
  const ManifestLoad again = load_manifest(out + "/manifest.json");
  ASSERT_TRUE(again.errors.empty()) << again.errors[0];
  EXPECT_EQ(again.kernels[0].reference_source, m["kernels"][0]["reference_source"].get<std::string>());
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// A kernel of two input tensors named to collide as file names, for the repro tests below.
ManifestLoad colliding_kernel(const test::TempDir& dir, const std::string& source, const std::string& case_name) {
  dir.write("m/" + source, "#include \"hkcheck.h\"\n");
  json kernel = json::parse(R"J({
    "name": "k", "entry": "copy", "reference": "copy", "params": {"n": 4},
    "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "p/q", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "p_q", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "uniform"}},
                {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", "p/q", "p_q", {"dtype": "i32", "value": "n"}], "launch": {"grid": [1], "block": [32]}
  })J");
  kernel["source"] = source;
  kernel["cases"] = json::array({json{{"name", case_name}, {"params", json::object()}}});
  return load_manifest(dir.write("m/k.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump()));
}

TEST(Repro, NamesThatSlugAlikeOrRunLongGetFoldersAndFilesOfTheirOwn) {
  EXPECT_NE(repro_subdir(".w", "c"), repro_subdir("_.w", "c"));
  EXPECT_NE(repro_subdir("k", "p/q"), repro_subdir("k", "p_q"));
  const std::string long_dir = repro_subdir(std::string(256, 'k'), std::string(300, 'c'));
  for (const auto& part : fs::path(long_dir)) EXPECT_LE(part.string().size(), 200u) << long_dir;
  EXPECT_NE(repro_subdir(std::string(256, 'k'), std::string(300, 'c')), repro_subdir(std::string(256, 'k'), std::string(300, 'c') + "d"));

  test::TempDir dir;
  const ManifestLoad load = colliding_kernel(dir, "k.cu", std::string(300, 'c'));
  ASSERT_TRUE(load.errors.empty()) << load.errors[0];
  const std::string out = dir.path() + "/" + repro_subdir("k", load.kernels[0].cases[0].name);
  write_repro(out, load.kernels[0], load.kernels[0].cases[0], repro_settings(1, "host"));
  std::set<std::string> tensors;
  for (const auto& e : fs::directory_iterator(out + "/inputs")) tensors.insert(read_tensor_file(e.path().string()).name);
  EXPECT_EQ(tensors, (std::set<std::string>{"x", "p/q", "p_q"})) << "one input file per tensor";
}

TEST(Repro, CopiesKeepTheirSourcesModeAndNeverTakeTheFoldersOwnNames) {
  test::TempDir dir;
  const ManifestLoad load = colliding_kernel(dir, "rerun.sh", "c");
  ASSERT_TRUE(load.errors.empty()) << load.errors[0];
  fs::permissions(dir.path() + "/m/rerun.sh", fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(dir.path() + "/m/k.json", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const std::string out = dir.path() + "/r";
  write_repro(out, load.kernels[0], load.kernels[0].cases[0], repro_settings(1, "host"));
  EXPECT_EQ(fs::status(out + "/kernel_source.sh").permissions(), fs::perms::owner_read | fs::perms::owner_write)
      << "a private kernel stays private";
  EXPECT_EQ(fs::status(out + "/manifest.json").permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(slurp(out + "/kernel_source.sh"), "#include \"hkcheck.h\"\n");
  EXPECT_NE(slurp(out + "/rerun.sh").find("exec"), std::string::npos) << "rerun.sh is the folder's own";
  const ManifestLoad again = load_manifest(out + "/manifest.json");
  ASSERT_TRUE(again.errors.empty()) << again.errors[0];
  EXPECT_EQ(fs::path(again.kernels[0].source).filename(), "kernel_source.sh");
}

}  // namespace
}  // namespace hk
