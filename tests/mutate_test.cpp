#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "contracts/mutation_report.h"
#include "app/mutate/clang_tokens.h"
#include "app/mutate/mutate_command.h"
#include "app/mutate/mutation_operators.h"

namespace hk {
namespace {

const char* kMutantSource = R"(#include "hkcheck.h"
// not device code: never mutated
int host_add(int a, int b) { return a + b; }
__device__ int counter = 3;

HK_DEVICE float scale(float v, float s) { return v * s; }

HK_KERNEL void k(T* __restrict__ out, const T* __restrict__ x, f32 s0, f32 s1, i32 n, i32 stride) {
  __shared__ float tile[32];
  const T* row = x + blockIdx.x * stride;
  for (i32 i = threadIdx.x; i < n; i += blockDim.x) {
    if (i % HK_WARP_SIZE == 0 && i != 7) tile[i & 31] = hk::to_f32(row[i]);
    __syncthreads();
    out[blockIdx.x * stride + i] = hk::from_f32<T>(scale(hk::to_f32(row[i]), s0) - s1);
  }
  mix(s0, s1);
}
)";

std::vector<Mutant> mutants() { return generate_mutants(kMutantSource, tokenize_source("k.cu", kMutantSource)); }

bool has(const std::vector<Mutant>& ms, const std::string& id) {
  return std::any_of(ms.begin(), ms.end(), [&](const Mutant& m) { return m.id == id; });
}

std::string applied(const std::vector<Mutant>& ms, const std::string& id) {
  for (const Mutant& m : ms)
    if (m.id == id) return apply_mutant(kMutantSource, m);
  return "";
}

TEST(ClangTokens, KindsAndExtentsAreExact) {
  const std::vector<SourceToken> t = tokenize_source("k.cu", kMutantSource);
  ASSERT_FALSE(t.empty());
  EXPECT_TRUE(t[0].directive);  // #include "hkcheck.h"
  const auto kw = std::find_if(t.begin(), t.end(), [](const SourceToken& s) { return s.text == "return"; });
  ASSERT_NE(kw, t.end());
  EXPECT_EQ(kw->kind, TokenKind::keyword);
  for (const SourceToken& s : t) EXPECT_EQ(std::string(kMutantSource).substr(s.begin, s.end - s.begin), s.text);
  EXPECT_TRUE(std::none_of(t.begin(), t.end(), [](const SourceToken& s) { return s.kind == TokenKind::comment; }));
}

TEST(MutationOperators, EachOperatorEditsDeviceCodeOnly) {
  const std::vector<Mutant> ms = mutants();
  EXPECT_TRUE(has(ms, "loop_bound@11:31/<="));
  EXPECT_TRUE(has(ms, "comparison_flip@12:26/!="));
  EXPECT_TRUE(has(ms, "arith_swap@6:52//"));  // v * s -> v / s in a __device__ helper
  EXPECT_TRUE(has(ms, "constant@12:39/8"));
  EXPECT_TRUE(has(ms, "sync_removed@13:5/removed"));
  EXPECT_TRUE(has(ms, "warp_width@12:13/64"));
  EXPECT_TRUE(has(ms, "rounding@14:40/from_f32_rz"));
  EXPECT_TRUE(has(ms, "mask_dropped@12:31/dropped"));
  EXPECT_TRUE(has(ms, "arg_swap@16:7/s1,s0"));
  EXPECT_TRUE(has(ms, "index_stride@14:22/+1"));
  EXPECT_NE(applied(ms, "sync_removed@13:5/removed").find("    (void)0;"), std::string::npos);
  EXPECT_NE(applied(ms, "index_stride@14:22/+1").find("out[blockIdx.x * (stride + 1) + i]"), std::string::npos);
  EXPECT_NE(applied(ms, "mask_dropped@12:31/dropped").find("if (i % HK_WARP_SIZE == 0) tile"), std::string::npos);
  for (const Mutant& m : ms) {
    EXPECT_GE(m.line, 6u) << m.id << ": host code and __device__ variables are not mutated";
    EXPECT_FALSE(m.line == 14 && m.description.find("'<'") != std::string::npos) << m.id << ": a template bracket is no comparison";
    EXPECT_FALSE(m.op == "arith_swap" && m.line == 8) << m.id << ": a declarator is no product";
    EXPECT_FALSE(m.op == "index_offset" && m.line == 9) << "a __shared__ array's size is no index";
  }
  // const T* row: the declarator's `*` is left alone, the product after `=` is not.
  EXPECT_TRUE(std::none_of(ms.begin(), ms.end(), [](const Mutant& m) { return m.id.rfind("arith_swap@10:10", 0) == 0; }));
  EXPECT_TRUE(has(ms, "arith_swap@10:33//"));
}

// Mutants of a file shared by several kernels: only the code the kernel under test runs.
TEST(MutationOperators, OnlyTheCodeTheEntryReaches) {
  const std::string src = R"(HK_DEVICE float used(float v) { return v + 1; }
HK_DEVICE float unused(float v) { return v - 1; }
HK_DEVICE float twice(float v) { return used(v) * 2; }
HK_KERNEL void a(float* o) { o[0] = twice(o[0]); }
HK_KERNEL void b(float* o) { o[0] = unused(o[0]) + 3; }
)";
  const std::vector<SourceToken> t = tokenize_source("s.cu", src);
  std::set<unsigned> lines;
  for (const Mutant& m : generate_mutants(src, t, "a")) lines.insert(m.line);
  EXPECT_EQ(lines, (std::set<unsigned>{1, 3, 4}));
  lines.clear();
  for (const Mutant& m : generate_mutants(src, t, "b")) lines.insert(m.line);
  EXPECT_EQ(lines, (std::set<unsigned>{2, 5}));
  lines.clear();
  for (const Mutant& m : generate_mutants(src, t, "not_a_kernel<int>")) lines.insert(m.line);
  EXPECT_EQ(lines.size(), 5u);  // every body, when the entry names no kernel of the file
}

TEST(MutationOperators, SelectionIsFixedBySeed) {
  const std::vector<Mutant> ms = mutants();
  ASSERT_GT(ms.size(), 20u);
  auto ids = [](const std::vector<Mutant>& v) {
    std::vector<std::string> out;
    for (const Mutant& m : v) out.push_back(m.id);
    return out;
  };
  const auto a = ids(select_mutants(ms, 5, 1)), b = ids(select_mutants(ms, 5, 1)), c = ids(select_mutants(ms, 5, 2));
  EXPECT_EQ(a.size(), 5u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(select_mutants(ms, 0, 1).size(), ms.size());
}

TEST(Mutant, DiffShowsTheEditWithContext) {
  const std::vector<Mutant> ms = mutants();
  const auto m = std::find_if(ms.begin(), ms.end(), [](const Mutant& x) { return x.id == "loop_bound@11:31/<="; });
  ASSERT_NE(m, ms.end());
  const std::string d = mutant_diff("kernels/k.cu", kMutantSource, *m);
  EXPECT_EQ(d.rfind("--- a/kernels/k.cu\n+++ b/kernels/k.cu\n@@ -8,7 +8,7 @@\n", 0), 0u) << d;
  EXPECT_NE(d.find("\n-  for (i32 i = threadIdx.x; i < n; i += blockDim.x) {\n+  for (i32 i = threadIdx.x; i <= n; i += blockDim.x) {\n"), std::string::npos) << d;
}

// `hkcheck mutate rmsnorm` replaced the project's whole report in results/mutation; a run of some
// kernels now has a folder of its own, named after them, whatever characters their globs hold.
TEST(MutationReport, ARunOfSomeKernelsNeverReplacesTheProjectsReport) {
  EXPECT_EQ(default_mutation_folder({}), "results/mutation");
  EXPECT_EQ(default_mutation_folder({"rmsnorm"}), "results/mutation/runs/rmsnorm");
  EXPECT_EQ(default_mutation_folder({"silu*", "rmsnorm/f16 D=7"}), "results/mutation/runs/silu_+rmsnorm_f16_D_7");
  EXPECT_EQ(default_mutation_folder({".."}), "results/mutation/runs/__") << "no pattern leads out of its folder";
}

TEST(MutationReport, JsonRoundTripAndScore) {
  MutationReport r;
  r.hkcheck_version = "0.1", r.seed = 7, r.max_mutants = 3, r.budget_s = 60;
  KernelMutation k;
  k.kernel = "rmsnorm", k.source = "kernels/norm/rmsnorm.cu", k.candidates = 9, k.cases = 4;
  for (MutantOutcome o : {MutantOutcome::KILLED, MutantOutcome::KILLED, MutantOutcome::SURVIVED, MutantOutcome::DISCARDED}) {
    MutantRecord m;
    m.id = "constant@1:1/2", m.outcome = o, m.diff = "--- a\n";
    k.mutants.push_back(m);
  }
  r.kernels.push_back(k);
  EXPECT_DOUBLE_EQ(*k.score(), 2.0 / 3.0);
  const nlohmann::json j = r;
  const MutationReport back = j.get<MutationReport>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.kernels[0].count(MutantOutcome::DISCARDED), 1u);
  EXPECT_NE(mutation_markdown(r).find("| rmsnorm | 67% | 2 | 1 | 0 | 1 | 0 | 9 | 4 |"), std::string::npos) << mutation_markdown(r);
  nlohmann::json bad = j;
  bad["kernels"][0]["mutants"][0]["outcome"] = "MAYBE";
  EXPECT_THROW(bad.get<MutationReport>(), std::exception);
}

// The line at the top of the markdown: kernels scored of all, the score of every mutant
// together, and the survivors left to kill or explain; a kernel with no score says why.
TEST(MutationReport, SummaryCountsScoredKernelsAndSurvivors) {
  MutationReport r;
  r.parallel = 4;
  KernelMutation scored, unscored;
  scored.kernel = "rmsnorm", unscored.kernel = "gemm", unscored.skipped = "runs on a GPU only";
  for (MutantOutcome o : {MutantOutcome::KILLED, MutantOutcome::KILLED, MutantOutcome::SURVIVED, MutantOutcome::EQUIVALENT}) {
    MutantRecord m;
    m.outcome = o;
    scored.mutants.push_back(m);
  }
  unscored.mutants.push_back(MutantRecord{});  // NOT_RUN
  r.kernels = {scored, unscored};
  const MutationSummary s = summarize(r);
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_EQ(s.scored, 1u);
  EXPECT_EQ(s.survived, 1u);
  EXPECT_DOUBLE_EQ(*s.score(), 2.0 / 3.0);
  const std::string md = mutation_markdown(r);
  EXPECT_EQ(md.find("# Mutation report\n\n**1 of 2 kernels scored; overall score 67% (2 killed, 1 survived); 1 survivor to explain "
                    "(1 explained as equivalent)**\n"),
            0u)
      << md;
  EXPECT_NE(md.find("**gemm**: no score: runs on a GPU only"), std::string::npos) << md;
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("summary").at("scored"), 1);
  EXPECT_EQ(j.get<MutationReport>().parallel, 4);
  EXPECT_FALSE(summarize(MutationReport{}).score().has_value());
}

}  // namespace
}  // namespace hk
