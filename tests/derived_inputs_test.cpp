// Derived tensors (docs/manifest.md, "Derived tensors"): inputs made by a reference run on the
// case's other inputs, as a backward kernel's out and lse come from the forward pass.
#include "refs/derived_inputs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run/case_fingerprint.h"
#include "model/dtype.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "select/project.h"
#include "reference.h"
#include "refs/reference_cache.h"
#include "refs/reference_inputs.h"
#include "test_util.h"

namespace {

int g_affine_runs = 0;

// Two outputs of one run: scaled = 1.5 x + 1/3 (not a bf16 value, so its rounding shows) and
// the row sums of x viewed as [rows, cols].
HK_REFERENCE(derived_test_affine) {
  ++g_affine_runs;
  const auto& x = ctx.tensor("x").data;
  auto& scaled = ctx.tensor("scaled").data;
  for (size_t i = 0; i < x.size(); ++i) scaled[i] = 1.5 * x[i] + 1.0 / 3.0;
  const int64_t rows = ctx.integer("rows"), cols = ctx.integer("cols");
  double* sums = ctx.tensor("row_sum").data.data();
  for (int64_t r = 0; r < rows; ++r) {
    sums[r] = 0;
    for (int64_t c = 0; c < cols; ++c) sums[r] += x[static_cast<size_t>(r * cols + c)];
  }
}

}  // namespace

namespace hk {
namespace {

using nlohmann::json;

// x [rows, cols] f32 normal; y bf16 and s f32 derived from one run; out compared.
json derived_kernel() {
  return json::parse(R"J({
    "name": "bwd", "source": "k.cu", "entry": "e", "reference": "copy",
    "params": {"rows": 5, "cols": 7},
    "cases": [{"name": "c"}],
    "tensors": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"], "role": "in", "init": {"kind": "normal"}},
                {"name": "y", "dtype": "bf16", "shape": ["rows", "cols"], "role": "in",
                 "init": {"kind": "reference", "reference": "derived_test_affine", "output": "scaled"}},
                {"name": "s", "dtype": "f32", "shape": ["rows"], "role": "in",
                 "init": {"kind": "reference", "reference": "derived_test_affine", "output": "row_sum"}},
                {"name": "out", "dtype": "f32", "shape": ["rows"], "role": "out"}],
    "args": ["out", "x", "y", "s"],
    "launch": {"grid": [1], "block": [32]}
  })J");
}

struct DerivedInputs : ::testing::Test {
  test::TempDir dir;
  void SetUp() override { dir.write("k.cu", "// not compiled here\n"); }
  ManifestLoad load(const json& kernel) {
    return load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump()));
  }
  CaseJob job_of(const json& kernel, uint64_t seed = 3) {
    const ManifestLoad m = load(kernel);
    EXPECT_TRUE(m.errors.empty()) << m.errors.at(0);
    return make_case_job(m.kernels.at(0), m.kernels.at(0).cases.at(0), seed, 1, "");
  }
  std::string error_of(const json& kernel) {
    const ManifestLoad m = load(kernel);
    EXPECT_EQ(m.errors.size(), 1u);
    return m.errors.empty() ? "" : m.errors[0];
  }
};

std::vector<double> decoded(DType t, const std::vector<uint8_t>& bytes, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  decode_elements(t, bytes.data(), 0, n, v.data());
  return v;
}

TEST_F(DerivedInputs, AreTheReferencesOutputsRoundedToTheirDtypeFromOneRun) {
  const CaseJob job = job_of(derived_kernel());
  const int before = g_affine_runs;
  const std::vector<std::vector<uint8_t>> packed = packed_inputs(job);
  EXPECT_EQ(g_affine_runs, before + 1) << "y and s share one run";
  const std::vector<double> x = decoded(DType::f32, packed[0], 35);
  std::vector<double> scaled(35), sums(5, 0.0);
  for (size_t i = 0; i < 35; ++i) scaled[i] = 1.5 * x[i] + 1.0 / 3.0, sums[i / 7] += x[i];
  std::vector<uint8_t> y(storage_bytes(DType::bf16, 35)), s(storage_bytes(DType::f32, 5));
  encode_elements(DType::bf16, scaled.data(), 35, y.data(), 0);
  encode_elements(DType::f32, sums.data(), 5, s.data(), 0);
  EXPECT_EQ(packed[1], y) << "y is the run's 'scaled', rounded to bf16";
  EXPECT_EQ(packed[2], s) << "s is the run's 'row_sum', rounded to f32";
  EXPECT_NE(decoded(DType::bf16, packed[1], 35), scaled) << "the rounding to bf16 happened";
  EXPECT_TRUE(packed[3].empty()) << "outputs have no initial bytes";
  EXPECT_EQ(packed_inputs(job), packed) << "the same seed, the same derived bytes";
  EXPECT_NE(packed_inputs(job_of(derived_kernel(), 4))[1], packed[1]) << "another seed's x, another y";
}

TEST_F(DerivedInputs, AnOutputOfAnotherSizeIsAnErrorNamingTheTensorAndField) {
  for (const char* rows : {"rows + 1", "rows - 1"}) {  // left unwritten, written past
    json k = derived_kernel();
    k["tensors"][2]["shape"] = {rows};
    try {
      packed_inputs(job_of(k));
      ADD_FAILURE() << rows << ": no error";
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("tensor 's', init.output 'row_sum': "), std::string::npos) << m;
      EXPECT_NE(m.find("elements expected (the tensor's shape), but reference 'derived_test_affine' does not give that many"),
                std::string::npos) << m;
    }
  }
}

TEST_F(DerivedInputs, AReferenceThatIsNotThereIsAnInputError) {
  json k = derived_kernel();
  k["tensors"][1]["init"]["reference"] = k["tensors"][2]["init"]["reference"] = "no_such_forward";
  try {
    packed_inputs(job_of(k));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'y' (init.reference 'no_such_forward'): the reference run failed"), std::string::npos)
        << e.what();
  }
}

TEST_F(DerivedInputs, ManifestErrorsNameTheField) {
  json k = derived_kernel();
  k["tensors"][1]["init"].erase("output");
  EXPECT_NE(error_of(k).find("m.json: /kernels/0/tensors/1/init/output: required field is missing"), std::string::npos) << error_of(k);
  k = derived_kernel();
  k["tensors"][1]["init"]["output"] = 3;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/1/init/output: expected a name as a string"), std::string::npos) << error_of(k);
  k = derived_kernel();
  k["tensors"][1]["init"]["reference"] = "not a name";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/1/init/reference: a reference name is a C identifier"), std::string::npos);
  k = derived_kernel();
  k["tensors"][1]["init"]["mean"] = 0;
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/1/init/mean: unknown field"), std::string::npos) << error_of(k);
  k = derived_kernel();  // derived from another derived tensor: a second run, on the first's values
  k["tensors"][2]["init"]["reference"] = "derived_from_y";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/init/reference: 's' is made by reference 'derived_from_y' and 'y' by "
                             "'derived_test_affine'"), std::string::npos) << error_of(k);
  k = derived_kernel();
  k["tensors"][2]["init"]["output"] = "scaled";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/init/output: 's' takes the output 'scaled' as 'y' does"), std::string::npos)
      << error_of(k);
  k = derived_kernel();
  k["tensors"][2]["init"]["output"] = "x";
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/2/init/output: 'x' is also an input of the case"), std::string::npos) << error_of(k);
  k = derived_kernel();
  k["tensors"][3]["init"] = k["tensors"][1]["init"];
  EXPECT_NE(error_of(k).find("/kernels/0/tensors/3/init: 'out' is an output"), std::string::npos) << error_of(k);
}

// The run's reference comes from the library of the kernel's own: one defined only elsewhere,
// or nowhere, is an error of the manifest's field found when the run gathers its references.
TEST_F(DerivedInputs, TheReferenceMustBeInTheFileOfTheKernelsReference) {
  dir.write("references/bwd.cpp", "#include \"reference.h\"\nHK_REFERENCE(proj_bwd) {}\nHK_REFERENCE(proj_fwd) {}\n");
  dir.write("references/other.cpp", "#include \"reference.h\"\nHK_REFERENCE(proj_other_fwd) {}\n");
  for (const std::string fwd : {"proj_fwd", "proj_other_fwd", "proj_nowhere"}) {
    json k = derived_kernel();
    k["reference"] = "proj_bwd";
    k["tensors"][1]["init"]["reference"] = k["tensors"][2]["init"]["reference"] = fwd;
    const ManifestLoad m = load(k);
    ASSERT_TRUE(m.errors.empty()) << m.errors.at(0);
    LoadedManifests loaded{m.kernels, {}, {}};
    find_references(loaded, ProjectPaths{dir.path(), dir.path(), dir.path() + "/references"});
    if (fwd == "proj_fwd") {
      EXPECT_TRUE(loaded.errors.empty()) << loaded.errors.at(0);
      EXPECT_EQ(loaded.kernels.size(), 1u);
      continue;
    }
    ASSERT_EQ(loaded.errors.size(), 1u) << fwd;
    EXPECT_NE(loaded.errors[0].find("m.json: /kernels/0/tensors/1/init/reference: no HK_REFERENCE(" + fwd + ") in "), std::string::npos)
        << loaded.errors[0];
    EXPECT_NE(loaded.errors[0].find("bwd.cpp, the file of the kernel's reference 'proj_bwd'"), std::string::npos) << loaded.errors[0];
    EXPECT_TRUE(loaded.kernels.empty());
  }
}

// The names are part of every key of the inputs: the job a worker gets, the case's fingerprint
// and the reference cache's key.
TEST_F(DerivedInputs, TheNamesArePartOfTheJobTheFingerprintAndTheCacheKey) {
  const json base = derived_kernel();
  json other = base;
  other["tensors"][1]["init"]["reference"] = other["tensors"][2]["init"]["reference"] = "derived_test_other";
  json swapped = base;
  swapped["tensors"][1]["init"]["output"] = "row_sum";
  swapped["tensors"][2]["init"]["output"] = "scaled";
  const CaseJob a = job_of(base), b = job_of(other), c = job_of(swapped);
  const CaseJob back = json(a).get<CaseJob>();
  EXPECT_EQ(back.plan.tensors[1].init.reference, "derived_test_affine");
  EXPECT_EQ(back.plan.tensors[2].init.output, "row_sum");
  EXPECT_NE(reference_cache_key(a, "lib"), reference_cache_key(b, "lib"));
  EXPECT_NE(reference_cache_key(a, "lib"), reference_cache_key(c, "lib"));
  const ManifestLoad ma = load(base);
  const std::string fa = case_fingerprint(ma.kernels.at(0), ma.kernels.at(0).cases.at(0), 1, 1, "");
  const ManifestLoad mb = load(other);
  EXPECT_NE(fa, case_fingerprint(mb.kernels.at(0), mb.kernels.at(0).cases.at(0), 1, 1, ""));
  const ManifestLoad mc = load(swapped);
  EXPECT_NE(fa, case_fingerprint(mc.kernels.at(0), mc.kernels.at(0).cases.at(0), 1, 1, ""));
}

}  // namespace
}  // namespace hk
