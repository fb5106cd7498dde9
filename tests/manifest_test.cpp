#include "model/manifest.h"
#include "model/manifest_load.h"
#include "select/project.h"

#include <gtest/gtest.h>
#include <filesystem>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "model/case_plan.h"
#include "model/plan_case.h"
#include "model/compile_target.h"
#include "refs/generator.h"
#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;

json valid_kernel(const std::string& name = "copy_kernel") {
  json k = json::parse(R"J({
    "name": "copy_kernel", "source": "k.cu", "entry": "copy", "reference": "copy",
    "defines": {"T": "$dtype"},
    "params": {"n": 100, "dtype": "f32"},
    "cases": [{"name": "small", "params": {"n": 7}},
              {"sweep": {"n": [1, 1000], "dtype": ["f32", "bf16"]}}],
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out", "tolerance": {"ulps": 2, "why": "test"}}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}],
    "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}
  })J");
  k["name"] = name;
  return k;
}

struct Fixture : ::testing::Test {
  test::TempDir dir;
  void SetUp() override { dir.write("k.cu", "#include \"hkcheck.h\"\n"); }
  ManifestLoad load(const json& doc, bool strict = false) { return load_manifest(dir.write("m.json", doc.dump()), {}, strict); }
  ManifestLoad load_kernels(std::vector<json> kernels, bool strict = false) { return load({{"hkcheck_manifest", 1}, {"kernels", kernels}}, strict); }
  // The single error of a manifest with one broken kernel.
  std::string error_of(const json& kernel, bool strict = false) {
    const ManifestLoad m = load_kernels({kernel}, strict);
    EXPECT_EQ(m.errors.size(), 1u);
    EXPECT_TRUE(m.kernels.empty());
    return m.errors.empty() ? "" : m.errors[0];
  }
};

TEST_F(Fixture, ValidManifestLoadsAndSweepsExpand) {
  const ManifestLoad m = load_kernels({valid_kernel()});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelSpec& k = m.kernels[0];
  ASSERT_EQ(k.cases.size(), 5u);
  EXPECT_EQ(k.cases[0].name, "small");
  EXPECT_EQ(k.cases[1].name, "dtype=f32,n=1");  // parameters in alphabetical order
  EXPECT_EQ(k.cases[4].name, "dtype=bf16,n=1000");
  const CasePlan p = plan_case(k, k.cases[4]);
  EXPECT_EQ(p.tensors[0].dtype, DType::bf16);
  EXPECT_EQ(p.tensors[1].shape, (std::vector<int64_t>{1000}));
  EXPECT_EQ(p.grid[0], 4);
  EXPECT_EQ(p.defines[0], (std::pair<std::string, std::string>{"T", "bf16"}));
  EXPECT_DOUBLE_EQ(p.tensors[1].tolerance.ulps, 2);
  EXPECT_DOUBLE_EQ(p.tensors[1].tolerance.atol, 1e-3);  // the bf16 default stays for unset fields
  EXPECT_EQ(p.args[2].value, 1000);
}

TEST_F(Fixture, BrokenJsonNamesTheFile) {
  const ManifestLoad m = load_manifest(dir.write("bad.json", "{ \"kernels\": [ }"));
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("bad.json: not valid JSON"), std::string::npos) << m.errors[0];
}

TEST_F(Fixture, WrongVersionIsRejected) {
  const ManifestLoad m = load({{"hkcheck_manifest", 2}, {"kernels", json::array()}});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("/hkcheck_manifest: expected 1"), std::string::npos) << m.errors[0];
}

TEST_F(Fixture, UnknownDtypeNamesTheJsonPath) {
  json k = valid_kernel();
  k["tensors"][1]["dtype"] = "bfloat16";
  const std::string e = error_of(k);
  EXPECT_NE(e.find("m.json: /kernels/0/tensors/1/dtype: unknown dtype 'bfloat16'"), std::string::npos) << e;
}

TEST_F(Fixture, UnknownDtypeThroughAParamIsCaught) {
  json k = valid_kernel();
  k["cases"] = json::parse(R"([{"name": "c", "params": {"dtype": "f8"}}])");
  const std::string e = error_of(k);
  EXPECT_NE(e.find("/kernels/0/tensors/0/dtype: case 'c': unknown dtype 'f8'"), std::string::npos) << e;
}

TEST_F(Fixture, MissingKernelFile) {
  json k = valid_kernel();
  k["source"] = "nope.cu";
  EXPECT_NE(error_of(k).find("/kernels/0/source: kernel file not found"), std::string::npos);
}

// A reference is looked up when the run gathers its references (project.h), among hkcheck's own
// and the project's: one found nowhere is an error of its manifest, and that kernel is left out.
TEST_F(Fixture, UnknownReference) {
  json k = valid_kernel(), known = valid_kernel();
  k["reference"] = "no_such_reference";
  known["name"] = "known";
  ManifestLoad m = load(json{{"hkcheck_manifest", 1}, {"kernels", {k, known}}});
  ASSERT_TRUE(m.errors.empty()) << m.errors.at(0);
  LoadedManifests loaded{m.kernels, {}, {}};
  find_references(loaded, ProjectPaths{dir.path(), dir.path() + "/manifests", dir.path() + "/references"});
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_NE(loaded.errors[0].find("/kernels/0/reference: no HK_REFERENCE(no_such_reference) in "), std::string::npos) << loaded.errors[0];
  ASSERT_EQ(loaded.kernels.size(), 1u);
  EXPECT_EQ(loaded.kernels[0].name, "known");
  EXPECT_EQ(loaded.failed_kernels, std::vector<std::string>{valid_kernel()["name"].get<std::string>()});
}

TEST_F(Fixture, ReferenceSourceMustExist) {
  json k = valid_kernel();
  k["reference_source"] = "refs/missing.cpp";
  EXPECT_NE(error_of(k).find("/kernels/0/reference_source: reference file not found"), std::string::npos) << error_of(k);
}

TEST_F(Fixture, MissingAndUnknownFields) {
  json k = valid_kernel();
  k.erase("entry");
  EXPECT_NE(error_of(k).find("/kernels/0/entry: required field is missing"), std::string::npos);
  k = valid_kernel();
  k["lanch"] = json::object();
  EXPECT_NE(error_of(k).find("/kernels/0/lanch: unknown field"), std::string::npos);
}

TEST_F(Fixture, BadExpressionNamesCaseAndPath) {
  json k = valid_kernel();
  k["tensors"][0]["shape"] = {"n * K"};
  const std::string e = error_of(k);
  EXPECT_NE(e.find("/kernels/0/tensors/0/shape/0"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown parameter 'K'"), std::string::npos) << e;
}

TEST_F(Fixture, GridMustBePositiveInteger) {
  json k = valid_kernel();
  k["launch"]["grid"] = {"n / 3"};
  EXPECT_NE(error_of(k).find("/kernels/0/launch/grid/0"), std::string::npos);
}

TEST_F(Fixture, ArgumentMustNameATensor) {
  json k = valid_kernel();
  k["args"][1] = "y";
  EXPECT_NE(error_of(k).find("/kernels/0/args/1: no tensor named 'y'"), std::string::npos);
}

TEST_F(Fixture, BadGeneratorAndRole) {
  json k = valid_kernel();
  k["tensors"][0]["init"] = {{"kind", "gaussian"}};
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/init/kind: unknown generator 'gaussian'"), std::string::npos);
  k = valid_kernel();
  k["tensors"][0]["role"] = "input";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/role"), std::string::npos);
  k = valid_kernel();
  k["tensors"][0].erase("init");
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/init: required"), std::string::npos);
}

// An output's initial values are the poison that shows unwritten elements: an init there would
// be dropped silently, so it is an error naming the field, and the manifest's other kernels load.
TEST_F(Fixture, InitOnAnOutputIsAnError) {
  json bad = valid_kernel("bad");
  bad["tensors"][1]["init"] = {{"kind", "constant"}, {"value", 0}};
  const ManifestLoad m = load_kernels({valid_kernel("good"), bad});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("m.json: /kernels/1/tensors/1/init: 'out' is an output, poisoned before the launch"), std::string::npos)
      << m.errors[0];
  EXPECT_NE(m.errors[0].find("role \"inout\""), std::string::npos) << m.errors[0];
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].name, "good");
  EXPECT_EQ(m.failed_kernels, std::vector<std::string>{"bad"});
  json inout = valid_kernel("inout");
  inout["tensors"][1]["role"] = "inout";
  inout["tensors"][1]["init"] = {{"kind", "constant"}, {"value", 0}};
  EXPECT_TRUE(load_kernels({inout}).errors.empty());
}

TEST_F(Fixture, DuplicateCaseNames) {
  json k = valid_kernel();
  k["cases"] = json::parse(R"([{"name": "a", "params": {}}, {"name": "a", "params": {}}])");
  EXPECT_NE(error_of(k).find("duplicate case name 'a'"), std::string::npos);
}

TEST_F(Fixture, OneBrokenKernelDoesNotStopTheOthers) {
  json bad = valid_kernel("bad");
  bad["tensors"][0]["dtype"] = "f99";
  const ManifestLoad m = load_kernels({valid_kernel("good1"), bad, valid_kernel("good2")});
  EXPECT_EQ(m.errors.size(), 1u);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].name, "good1");
  EXPECT_EQ(m.kernels[1].name, "good2");
  EXPECT_EQ(m.failed_kernels, std::vector<std::string>{"bad"});
}

// A tolerance looser than its dtype's default without a reason is hkcheck's rule, not a bug: a
// warning naming the file and field, once however many cases share it, and the kernel runs;
// under --strict (hkcheck's own corpus) an error that leaves the kernel out. One that only
// tightens (or restates) the default needs none.
TEST_F(Fixture, ALoosenedToleranceWithoutWhyWarnsAndIsAnErrorOnlyWhenStrict) {
  json k = valid_kernel();
  k["tensors"][1]["tolerance"] = {{"ulps", 2}};
  const ManifestLoad lax = load_kernels({k});
  EXPECT_TRUE(lax.errors.empty());
  ASSERT_EQ(lax.kernels.size(), 1u) << "the kernel runs";
  ASSERT_EQ(lax.warnings.size(), 1u) << ::testing::PrintToString(lax.warnings);
  EXPECT_NE(lax.warnings[0].find("m.json: /kernels/0/tensors/1/tolerance: ulps 2 > 0 is looser than the f32 default and has no \"why\""),
            std::string::npos)
      << lax.warnings[0];
  EXPECT_NE(lax.warnings[0].find("--strict makes it an error"), std::string::npos) << lax.warnings[0];
  EXPECT_NE(error_of(k, true).find("/kernels/0/tensors/1/tolerance: case 'small': ulps 2 > 0 is looser than the f32 default and has no \"why\""),
            std::string::npos)
      << error_of(k, true);
  k["tensors"][1]["tolerance"] = {{"atol", 1e-6}, {"ulps", 0}};
  EXPECT_TRUE(load_kernels({k}, true).errors.empty());
  EXPECT_TRUE(load_kernels({k}).warnings.empty());
  k["tensors"][1]["tolerance"] = {{"max_mismatch_fraction", 0.01}};
  EXPECT_NE(error_of(k, true).find("max_mismatch_fraction 0.01"), std::string::npos);
  k["tensors"][1]["tolerance"] = {{"atol", 0}};
  k["cases"] = json::parse(R"([{"name": "a", "params": {"dtype": "bf16"}, "tolerance": {"out": {"atol": 0.01}}}])");
  EXPECT_NE(error_of(k, true).find("case 'a', the tolerance of 'out': atol 0.01 > 0.001 is looser than the bf16 default"), std::string::npos)
      << error_of(k, true);
  k["cases"][0]["tolerance"]["out"]["why"] = "bf16 output of a 4096-term sum";
  EXPECT_TRUE(load_kernels({k}, true).errors.empty());
}

TEST_F(Fixture, EquivalentMutantsNeedAnIdAndAReason) {
  json k = valid_kernel();
  k["equivalent_mutants"] = json::parse(R"([{"id": "sync_removed@4:3/removed", "why": "nothing shared"}])");
  const ManifestLoad m = load_kernels({k});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  ASSERT_EQ(m.kernels[0].equivalent_mutants.size(), 1u);
  EXPECT_EQ(m.kernels[0].equivalent_mutants[0].why, "nothing shared");
  k["equivalent_mutants"][0]["id"] = "sync_removed";
  EXPECT_NE(error_of(k).find("/equivalent_mutants/0/id: expected a mutant id"), std::string::npos);
  k["equivalent_mutants"] = json::parse(R"([{"id": "a@1:1/x", "why": "w"}, {"id": "a@1:1/x", "why": "w"}])");
  EXPECT_NE(error_of(k).find("/equivalent_mutants/1/id: mutant 'a@1:1/x' is listed twice"), std::string::npos);
  k["equivalent_mutants"] = json::parse(R"([{"id": "a@1:1/x"}])");
  EXPECT_NE(error_of(k).find("/equivalent_mutants/0/why: required field is missing"), std::string::npos) << error_of(k);
}

TEST_F(Fixture, CaseToleranceMustNameAnOutput) {
  json k = valid_kernel();
  k["cases"] = json::parse(R"([{"name": "a", "params": {}, "tolerance": {"x": {"atol": 1}}}])");
  EXPECT_NE(error_of(k).find("'x', which is not an output"), std::string::npos);
}

// A tolerance says why it is that loose: a sentence for the reviewer, never an empty one.
TEST_F(Fixture, AToleranceMayGiveItsReasonAsText) {
  json k = valid_kernel();
  k["tensors"][1]["tolerance"]["why"] = "a 4096-long f32 dot product rounded to bf16";
  const ManifestLoad m = load_kernels({k});
  EXPECT_TRUE(m.errors.empty()) << (m.errors.empty() ? "" : m.errors[0]);
  k["tensors"][1]["tolerance"]["why"] = "";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/1/tolerance/why: expected a non-empty string"), std::string::npos);
  k["tensors"][1]["tolerance"]["why"] = 3;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/1/tolerance/why: expected a non-empty string"), std::string::npos);
}

// Offsets such as cu_seqlens [0, 5, 130] are no arange: "values" lists them, one per element,
// each an expression of the params.
TEST_F(Fixture, AValuesGeneratorListsEveryElement) {
  json k = valid_kernel();
  k["tensors"][0]["shape"] = json::array({3});
  k["tensors"][0]["init"] = json::parse(R"({"kind": "values", "values": [0, 5, "n + 123"]})");
  k["cases"] = json::parse(R"([{"name": "a", "params": {"n": 7}}])");
  const ManifestLoad m = load_kernels({k});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  const CasePlan p = plan_case(m.kernels[0], m.kernels[0].cases[0]);
  EXPECT_EQ(generate(p.tensors[0].init, 3, 1), (std::vector<double>{0, 5, 130}));

  k["tensors"][0]["shape"] = json::array({4});  // one value short: an error of the file, naming the field
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/init/values: case 'a': lists 3 value(s) for a tensor of 4 element(s)"), std::string::npos);
  k["tensors"][0]["init"] = json::parse(R"({"kind": "values", "values": []})");
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/0/init/values: expected a list of 1 to"), std::string::npos);
}

// A port and its original under one entry: each vendor's file, the device's chosen by the run.
TEST_F(Fixture, ASourcePerVendorIsChosenByTheRun) {
  dir.write("k.hip", "#include <hip/hip_runtime.h>\n");
  json k = valid_kernel();
  k["source"] = json::parse(R"({"cuda": "k.cu", "hip": "k.hip"})");
  ManifestLoad m = load_kernels({k});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  EXPECT_EQ(std::filesystem::path(m.kernels[0].source).filename(), "k.cu") << "CUDA's until a run chooses";
  EXPECT_EQ(std::filesystem::path(source_for(m.kernels[0], vendor_of_arch("gfx942"))).filename(), "k.hip");
  use_compile_target(m.kernels, run_target("hip", "gfx942", "hip"));
  EXPECT_EQ(std::filesystem::path(m.kernels[0].source).filename(), "k.hip");
  EXPECT_EQ(vendor_of_arch("sm_90"), "cuda");

  k["source"] = json::parse(R"({"cuda": "k.cu", "sycl": "k.cpp"})");
  EXPECT_NE(error_of(k).find("/kernels/0/source/sycl: unknown field"), std::string::npos);
  k["source"] = json::parse(R"({"hip": "missing.hip"})");
  EXPECT_NE(error_of(k).find("/kernels/0/source/hip: kernel file not found"), std::string::npos);
  k["source"] = json::object();
  EXPECT_NE(error_of(k).find("/kernels/0/source: expected a file for"), std::string::npos);
}

TEST(SubstituteParams, ReplacesBothForms) {
  const Params p = {{"dtype", std::string("bf16")}, {"K", 4.0}};
  EXPECT_EQ(substitute_params("$dtype", p, ""), "bf16");
  EXPECT_EQ(substitute_params("v${K}x$K", p, ""), "v4x4");
  EXPECT_THROW(substitute_params("$nope", p, "/p"), PlanError);
}

TEST_F(Fixture, CasesCarryTheirSizeTier) {
  json k = valid_kernel();
  k["cases"][0]["tier"] = "large";
  const ManifestLoad m = load_kernels({k});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  EXPECT_EQ(m.kernels[0].cases[0].tier, "large");
  for (size_t i = 1; i < m.kernels[0].cases.size(); ++i) EXPECT_EQ(m.kernels[0].cases[i].tier, "small");
  k["cases"][1]["tier"] = "large";  // a sweep's tier applies to each of its cases
  const ManifestLoad all_large = load_kernels({k});
  for (const CaseSpec& c : all_large.kernels[0].cases) EXPECT_EQ(c.tier, "large");
}

TEST_F(Fixture, UnknownTierIsRejectedWithItsPath) {
  json k = valid_kernel();
  k["cases"][1]["tier"] = "huge";
  const std::string e = error_of(k);
  EXPECT_NE(e.find("/kernels/0/cases/1/tier"), std::string::npos) << e;
  EXPECT_NE(e.find("\"small\" or \"large\""), std::string::npos) << e;
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// Input that used to take the whole run down while loading: each is now an error of its file and
// field, and the other kernels of the file still load.
TEST_F(Fixture, ANumberBeyondDoubleRangeIsAnErrorOfTheFile) {
  dir.write("big.json", R"({"hkcheck_manifest": 1, "kernels": [{"name": "k", "timeout": 1e999}]})");
  const ManifestLoad m = load_manifest(dir.path() + "/big.json");
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("not valid JSON"), std::string::npos) << m.errors[0];
}

TEST_F(Fixture, AnExpressionNestedTooDeepIsAnErrorNotAStackOverflow) {
  json k = valid_kernel();
  k["launch"]["grid"] = json::array({std::string(100000, '(') + "1" + std::string(100000, ')')});
  const std::string e = error_of(k);
  EXPECT_NE(e.find("nested more than 200 levels"), std::string::npos) << e.substr(0, 400);
  EXPECT_LT(e.size(), 2000u) << "the message quotes the expression's start, not all of it";
}

TEST_F(Fixture, AHugeKernelNameIsRefused) {
  const std::string e = error_of(valid_kernel(std::string(1 << 20, 'a')));
  EXPECT_NE(e.find("/kernels/0/name: longer than 256 characters"), std::string::npos) << e.substr(0, 400);
}

TEST_F(Fixture, ASourceThatIsASymlinkLoopIsAnErrorOfTheField) {
  std::filesystem::create_symlink("loop.cu", dir.path() + "/loop.cu");
  json bad = valid_kernel("looping");
  bad["source"] = "loop.cu";
  const ManifestLoad m = load_kernels({bad, valid_kernel("fine")});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("/kernels/0/source: kernel file not found"), std::string::npos) << m.errors[0];
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].name, "fine");
}

TEST_F(Fixture, ATimeoutBeyondADayIsRefused) {
  json k = valid_kernel();
  k["timeout"] = 1e10;
  EXPECT_NE(error_of(k).find("/timeout: expected seconds, more than 0 and at most 86400"), std::string::npos);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

TEST_F(Fixture, AnIntGeneratorWithNoIntegerInItsRangeIsAnErrorAtLoad) {
  json k = valid_kernel();
  k["tensors"][0]["init"] = {{"kind", "int"}, {"low", 5}, {"high", 4.5}};
  EXPECT_NE(error_of(k).find("/tensors/0/init: case 'small': int generator: no integer between low 5 and high 4.5"), std::string::npos) << error_of(k);
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

TEST_F(Fixture, ScalarArgumentsMustFitTheirType) {
  for (const auto& [dtype, value] : std::vector<std::pair<std::string, double>>{{"i32", 1099511627776.0}, {"u32", -5}, {"i32", 1.7}}) {
    json k = valid_kernel();
    k["args"][2] = {{"dtype", dtype}, {"value", value}};
    EXPECT_NE(error_of(k).find("/args/2/value: case 'small': "), std::string::npos) << dtype << " " << value << ": " << error_of(k);
    EXPECT_NE(error_of(k).find("does not fit a " + dtype + " argument"), std::string::npos) << error_of(k);
  }
}

TEST_F(Fixture, AShapeWhoseProductOverflowsIsRefused) {
  json k = valid_kernel();
  k["tensors"][0]["shape"] = {"4294967296", "4294967296", "n"};
  EXPECT_NE(error_of(k).find("/tensors/0/shape/1: case 'small': the shape has more than"), std::string::npos) << error_of(k);
}

TEST_F(Fixture, ASweepOfTooManyCasesIsRefusedBeforeItIsExpanded) {
  json k = valid_kernel();
  json sweep = json::object();
  for (int a = 0; a < 24; ++a) sweep["a" + std::to_string(a)] = {1, 2};
  k["cases"] = json::array({{{"sweep", sweep}}});
  EXPECT_NE(error_of(k).find("/kernels/0/cases/0/sweep: expands to more than 100000 cases"), std::string::npos) << error_of(k);
}

TEST_F(Fixture, AManifestVersionThatOnlyTruncatesToOneIsRefused) {
  const ManifestLoad m = load(json{{"hkcheck_manifest", 4294967297LL}, {"kernels", json::array({valid_kernel()})}});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("/hkcheck_manifest: expected 1"), std::string::npos) << m.errors[0];
}

TEST_F(Fixture, JsonEntriesThatAreNotFilesAreReportedNotOpened) {
  const std::string folder = dir.path() + "/many";
  std::filesystem::create_directories(folder + "/dir.json");
  ASSERT_EQ(mkfifo((folder + "/fifo.json").c_str(), 0644), 0);
  std::filesystem::create_symlink(folder + "/nowhere", folder + "/dangling.json");
  dir.write("many/good.json", "{}");
  std::vector<std::string> not_files;
  const auto files = find_manifests(folder, &not_files);
  EXPECT_EQ(files, std::vector<std::string>{folder + "/good.json"});
  EXPECT_EQ(not_files.size(), 3u);
  for (const auto& n : not_files) EXPECT_NE(n.find("not a regular file"), std::string::npos) << n;
}

}  // namespace
}  // namespace hk
