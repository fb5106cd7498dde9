// The worker's case executor on a simulated backend whose "kernels" are C++ functions over host
// memory: guard regions, repeated launches, TOO_LARGE and a throwing reference, end to end
// through execute_case, without a GPU.
#include "worker/case_exec.h"
#include "compile/cache_seal.h"
#include "check/output_check.h"
#include "model/plan_case.h"
#include "compile/header_fingerprint.h"
#include "compile/include_closure.h"
#include "util/file_util.h"

#include <cstring>
#include <ctime>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim_backend.h"
#include "test_util.h"
#include "model/manifest_load.h"

namespace hk {
namespace {

using nlohmann::json;
using test::SimBackend;
struct CaseExec : ::testing::Test {
  test::TempDir dir;
  SimBackend be;
  CompileCache cache{""};

  // One kernel over x[n] -> out[n]; extra fields go into the kernel's manifest entry.
  KernelSpec kernel(const std::string& entry, const json& extra = json::object()) {
    dir.write("k.cu", "// simulated\n");
    json k = json::parse(R"J({
      "name": "k", "source": "k.cu", "entry": "e", "reference": "copy", "params": {"n": 100},
      "cases": [{"name": "c"}],
      "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                  {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
      "args": ["out", "x", {"dtype": "i32", "value": "n"}],
      "launch": {"grid": [1], "block": [128]}
    })J");
    k["entry"] = entry;
    k.update(extra);
    const ManifestLoad m = load_manifest(dir.write("m.json", json{{"hkcheck_manifest", 1}, {"kernels", {k}}}.dump()));
    EXPECT_TRUE(m.errors.empty()) << m.errors.at(0);
    return m.kernels.at(0);
  }
  CaseResult run(const KernelSpec& k, int repeat = 1) {
    bool sticky = false;
    CaseResult r = execute_case(be, k, k.cases.at(0), ExecOptions{0, std::max(repeat, manifest_repeat(k, k.cases.at(0)))}, cache, &sticky);
    EXPECT_FALSE(sticky);
    return r;
  }
};

void copy(float* out, const float* x, int n, int) {
  for (int i = 0; i < n; ++i) out[i] = x[i];
}

TEST_F(CaseExec, CorrectKernelPassesWithCleanGuards) {
  be.kernels["copy"] = copy;
  const CaseResult r = run(kernel("copy"), 3);
  EXPECT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_EQ(r.launches, 3);
  EXPECT_TRUE(r.guards.empty());
  EXPECT_TRUE(r.repeat_diffs.empty());
}

TEST_F(CaseExec, WritePastTheEndFailsWithItsOffsets) {
  be.kernels["past_end"] = [](float* out, const float* x, int n, int) {
    for (int i = 0; i <= n; ++i) out[i] = x[i < n ? i : n - 1];
  };
  const CaseResult r = run(kernel("past_end"));
  EXPECT_EQ(r.status, Status::FAIL);
  ASSERT_EQ(r.guards.size(), 1u);
  EXPECT_EQ(r.guards[0].tensor, "out");
  EXPECT_EQ(r.guards[0].side, "after");
  EXPECT_EQ(r.guards[0].bytes, 4);
  EXPECT_EQ(r.guards[0].first_offset, 0);
  EXPECT_EQ(r.guards[0].last_offset, 3);
  EXPECT_TRUE(r.outputs.at(0).pass) << "the values themselves are right: only the guard shows the bug";
}

TEST_F(CaseExec, WriteBeforeTheStartOfAnInputIsCaughtToo) {
  be.kernels["before_x"] = [](float* out, const float* x, int n, int) {
    const_cast<float*>(x)[-2] = 0.f;
    copy(out, x, n, 0);
  };
  const CaseResult r = run(kernel("before_x"));
  EXPECT_EQ(r.status, Status::FAIL);
  ASSERT_EQ(r.guards.size(), 1u);
  EXPECT_EQ(r.guards[0].tensor, "x");
  EXPECT_EQ(r.guards[0].side, "before");
  EXPECT_EQ(r.guards[0].first_offset, -8);
  EXPECT_EQ(r.guards[0].last_offset, -5);
}

// The host backend's page: bytes before a buffer and after its guard that a kernel can write
// without a fault. A write there is a write outside the tensor as much as one in the guard.
TEST_F(CaseExec, WritesIntoTheAllocationsSlackAreCaught) {
  be.slack_bytes = {3328, 156};
  be.kernels["far_before"] = [](float* out, const float* x, int n, int) {
    reinterpret_cast<char*>(out)[-260] ^= 0x5A;
    reinterpret_cast<char*>(out)[-3584] ^= 0x5A;  // the first byte of the slack
    copy(out, x, n, 0);
  };
  be.kernels["far_after"] = [](float* out, const float* x, int n, int) {
    copy(out, x, n, 0);
    reinterpret_cast<char*>(out + n)[300] ^= 0x5A;  // past the 256-byte guard
  };
  const CaseResult before = run(kernel("far_before"));
  EXPECT_EQ(before.status, Status::FAIL);
  ASSERT_EQ(before.guards.size(), 1u);
  EXPECT_EQ(before.guards[0].side, "before");
  EXPECT_EQ(before.guards[0].bytes, 2);
  EXPECT_EQ(before.guards[0].first_offset, -3584);
  EXPECT_EQ(before.guards[0].last_offset, -260);
  const CaseResult after = run(kernel("far_after"));
  EXPECT_EQ(after.status, Status::FAIL);
  ASSERT_EQ(after.guards.size(), 1u);
  EXPECT_EQ(after.guards[0].side, "after");
  EXPECT_EQ(after.guards[0].first_offset, 300);
  be.kernels["copy"] = copy;
  EXPECT_EQ(run(kernel("copy"), 2).status, Status::PASS) << "the slack is refilled before every launch";
}

// Nothing to compare is not a proof: SKIP EMPTY_CASE, unless the launch wrote outside the tensors.
TEST_F(CaseExec, ACaseWithOnlyEmptyTensorsIsSkippedNotPassed) {
  be.kernels["copy"] = copy;
  const CaseResult r = run(kernel("copy", {{"params", {{"n", 0}}}}));
  EXPECT_EQ(r.status, Status::SKIP);
  EXPECT_EQ(r.reason, "EMPTY_CASE");
  EXPECT_NE(r.message.find("every tensor of this case has zero elements"), std::string::npos) << r.message;
  be.kernels["writes_anyway"] = [](float* out, const float*, int, int) { out[0] = 1.f; };
  const CaseResult bad = run(kernel("writes_anyway", {{"params", {{"n", 0}}}}));
  EXPECT_EQ(bad.status, Status::FAIL);
  EXPECT_EQ(bad.guards.size(), 1u);
  EXPECT_EQ(run(kernel("copy", {{"params", {{"n", 1}}}})).status, Status::PASS);
}

// The manifest's scalars against the kernel's parameters: a mismatch is an ERROR naming the
// argument and both types, never a launch that reads the wrong bytes.
TEST_F(CaseExec, ArgumentsThatDoNotFitTheKernelsParametersAreAnError) {
  be.kernels["copy"] = copy;
  const KernelParam ptr{ParamKind::pointer, 8, "float*"};
  be.params = std::vector<KernelParam>{ptr, ptr, {ParamKind::signed_int, 8, "long int"}};
  CaseResult r = run(kernel("copy"));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("m.json: the manifest's arguments do not fit 'copy'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("argument 2 (/args/2, scalar i32 (a signed integer, 4 bytes)) does not match the kernel's "
                           "parameter 2, `long int` (a signed integer, 8 bytes)"),
            std::string::npos)
      << r.message;
  be.params = std::vector<KernelParam>{ptr, ptr, {ParamKind::floating, 4, "float"}};  // same size, another type
  r = run(kernel("copy"));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("`float` (floating point, 4 bytes)"), std::string::npos) << r.message;
  be.params = std::vector<KernelParam>{ptr, {ParamKind::floating, 4, "float"}, {ParamKind::signed_int, 4, "int"}};
  r = run(kernel("copy"));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("argument 1 (/args/1, tensor 'x' (a device pointer, 8 bytes))"), std::string::npos) << r.message;
  be.params = std::vector<KernelParam>{ptr, ptr};
  r = run(kernel("copy"));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("the kernel takes 2 parameter(s); the manifest passes 3 argument(s)"), std::string::npos) << r.message;
  // Sizes only, as the CUDA driver tells them: what fits passes, a 4-byte scalar for 8 does not.
  const KernelParam eight{ParamKind::unknown, 8, ""};
  be.params = std::vector<KernelParam>{eight, eight, {ParamKind::unknown, 4, ""}};
  EXPECT_EQ(run(kernel("copy")).status, Status::PASS);
  be.params = std::vector<KernelParam>{eight, eight, eight};
  r = run(kernel("copy"));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("parameter 2, 8 bytes"), std::string::npos) << r.message;
  be.params = std::vector<KernelParam>{ptr, ptr, {ParamKind::signed_int, 4, "int"}};
  EXPECT_EQ(run(kernel("copy")).status, Status::PASS);
}

TEST_F(CaseExec, OutputsThatChangeBetweenLaunchesAreFlaky) {
  // A stand-in for a race: from the second launch on, 3 elements come out different.
  be.kernels["racy"] = [](float* out, const float* x, int n, int launch) {
    copy(out, x, n, 0);
    if (launch > 1)
      for (int i = 0; i < 3; ++i) out[10 * i] += 1.f;
  };
  const CaseResult r = run(kernel("racy", {{"repeat", 3}}));
  EXPECT_EQ(r.status, Status::FLAKY);
  EXPECT_EQ(r.launches, 3);
  ASSERT_EQ(r.repeat_diffs.size(), 2u);
  EXPECT_EQ(r.repeat_diffs[0].launch, 2);
  EXPECT_EQ(r.repeat_diffs[0].elements, 3);
  EXPECT_EQ(r.repeat_diffs[1].launch, 3);
  EXPECT_TRUE(r.outputs.at(0).pass) << "the first launch was right: only repeating shows the race";
  // One launch cannot see it.
  be.kernels["racy2"] = be.kernels["racy"];
  EXPECT_EQ(run(kernel("racy2")).status, Status::PASS);
}

// The parent re-checks every record by the rule that decided it (output_check.h): every verdict
// the worker reaches must pass that check, or the parent would turn honest results into errors.
TEST_F(CaseExec, EveryJudgedVerdictFollowsFromItsOwnRecord) {
  be.kernels["copy"] = copy;
  be.kernels["wrong"] = [](float* out, const float* x, int n, int) { copy(out, x, n / 2, 0); };
  be.kernels["past_end"] = [](float* out, const float* x, int n, int) { copy(out, x, n, 0), out[n] = 0.f; };
  be.kernels["racy"] = [](float* out, const float* x, int n, int launch) { copy(out, x, n, 0), out[0] += static_cast<float>(launch); };
  for (const char* entry : {"copy", "wrong", "past_end", "racy"}) {
    const KernelSpec k = kernel(entry, {{"repeat", 2}});
    const CaseResult r = run(k);
    EXPECT_EQ(verdict_contradiction(r, plan_case(k, k.cases.at(0))), "") << entry << ": " << status_name(r.status);
  }
}

TEST_F(CaseExec, EachLaunchStartsFromTheSameInputsAndPoison) {
  // Writes only on the first launch, and scribbles on its input: a second launch must see the
  // original input and poisoned output again, so its (unwritten) output differs.
  be.kernels["once"] = [](float* out, const float* x, int n, int launch) {
    if (launch == 1) copy(out, x, n, 0);
    const_cast<float*>(x)[0] = 42.f;
  };
  const CaseResult r = run(kernel("once"), 2);
  EXPECT_EQ(r.status, Status::FLAKY);
  ASSERT_EQ(r.repeat_diffs.size(), 1u);
  EXPECT_EQ(r.repeat_diffs[0].elements, 100);
}

TEST_F(CaseExec, TensorsOverTheDeviceMemoryAreTooLarge) {
  be.kernels["copy"] = copy;
  const CaseResult r = run(kernel("copy", {{"params", {{"n", int64_t{1} << 30}}}}));
  EXPECT_EQ(r.status, Status::SKIP);
  EXPECT_EQ(r.reason, "TOO_LARGE");
  ASSERT_TRUE(r.limit);
  EXPECT_EQ(r.limit->requested, 2 * ((int64_t{4} << 30) + 512));
  EXPECT_EQ(r.limit->limit, int64_t{1} << 30);
  EXPECT_NE(r.message.find("over by"), std::string::npos);
}

TEST_F(CaseExec, TensorsWhoseWorkerCopiesOverflowTheHostAreTooLarge) {
  // The device would hold them; the worker's double copies would not fit this machine's memory.
  be.kernels["copy"] = copy;
  be.dev_.total_memory = int64_t{1} << 60;
  be.dev_.host_memory = int64_t{1} << 30;
  const CaseResult r = run(kernel("copy", {{"params", {{"n", int64_t{1} << 26}}}}));
  EXPECT_EQ(r.status, Status::SKIP);
  EXPECT_EQ(r.reason, "TOO_LARGE");
  ASSERT_TRUE(r.limit);
  EXPECT_NE(r.limit->what.find("host memory"), std::string::npos) << r.limit->what;
  EXPECT_EQ(r.limit->requested, 2 * (int64_t{1} << 26) * 12);  // out and x: 8 bytes in double, 4 packed
  EXPECT_EQ(r.limit->limit, int64_t{1} << 30);
  EXPECT_NE(r.message.find("over by"), std::string::npos);
}

TEST_F(CaseExec, RefusedAllocationIsTooLarge) {
  be.kernels["copy"] = copy;
  be.refuse_alloc_over = 1000;
  const CaseResult r = run(kernel("copy", {{"params", {{"n", 1000}}}}));
  EXPECT_EQ(r.status, Status::SKIP);
  EXPECT_EQ(r.reason, "TOO_LARGE");
  EXPECT_NE(r.message.find("simulated out of memory"), std::string::npos) << r.message;
}

TEST_F(CaseExec, ThrowingReferenceIsAnErrorWithItsMessage) {
  be.kernels["copy"] = copy;
  const CaseResult r = run(kernel("copy", {{"reference", "known_bad_throws"}}));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("this reference fails on purpose"), std::string::npos) << r.message;
}

TEST_F(CaseExec, AReferenceWritingPastItsOutputIsAnErrorOfTheReference) {
  be.kernels["copy"] = copy;
  const CaseResult r = run(kernel("copy", {{"reference", "known_bad_writes_past_output"}}));
  EXPECT_EQ(r.status, Status::ERROR);
  EXPECT_NE(r.message.find("reference 'known_bad_writes_past_output' wrote past its output 'out'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("3 value(s) written past its end, the first 0 past it"), std::string::npos) << r.message;
}

// The kernel's CPU (here the simulated kernel runs on the host) is the case's, and no part's:
// each part's CPU is measured over that part alone.
TEST_F(CaseExec, EachPartsCpuIsItsOwn) {
  be.kernels["spin"] = [](float* out, const float* x, int n, int) {
    timespec ts{};
    auto cpu_ms = [&] { return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), ts.tv_sec * 1e3 + ts.tv_nsec / 1e6; };
    for (const double until = cpu_ms() + 80; cpu_ms() < until;) {
    }
    copy(out, x, n, 0);
  };
  const CaseResult r = run(kernel("spin"));
  ASSERT_EQ(r.status, Status::PASS) << r.message;
  EXPECT_GE(r.cpu.case_ms, 80);
  EXPECT_LT(r.cpu.inputs_ms + r.cpu.reference_ms + r.cpu.compare_ms, r.cpu.case_ms - 60);
  EXPECT_GT(r.cpu.inputs_ms, 0) << "the inputs were generated on this process's CPU";
}

TEST_F(CaseExec, MissingEntryNamesTheSymbol) {
  const CaseResult r = run(kernel("no_such_kernel"));
  EXPECT_EQ(r.status, Status::COMPILE_ERROR);
  EXPECT_NE(r.message.find("no_such_kernel"), std::string::npos);
}

// A header on the include path is part of what was compiled: the same source with another
// version of its header is another cache entry.
TEST(CompileCacheFile, TheHeadersContentsArePartOfTheKey) {
  test::TempDir cache, v2, v3;
  v2.write("common.cuh", "#define SCALE 2\n");
  v3.write("common.cuh", "#define SCALE 3\n");
  SimBackend be;
  bool cached = true;
  std::string key2, key3;
  CompileCache{cache.path()}.get(be, CompileRequest{"#include \"common.cuh\"", "k.cu", {"-I" + v2.path()}, {"k"}}, &cached, &key2);
  CompileCache{cache.path()}.get(be, CompileRequest{"#include \"common.cuh\"", "k.cu", {"-I" + v3.path()}, {"k"}}, &cached, &key3);
  EXPECT_FALSE(cached) << "another header, another compile";
  EXPECT_NE(key2, key3);
}

TEST(HeaderFingerprint, FollowsTheContentsOfHeadersOnly) {
  test::TempDir dir;
  dir.write("common.cuh", "#define SCALE 2\n");
  dir.write("notes.txt", "a\n");
  const std::string before = fingerprint_folder(dir.path());
  dir.write("notes.txt", "b\n");
  EXPECT_EQ(fingerprint_folder(dir.path()), before) << "a text file is not a header";
  dir.write("common.cuh", "#define SCALE 3\n");
  EXPECT_NE(fingerprint_folder(dir.path()), before) << "an edited header";
}

}  // namespace
}  // namespace hk

namespace hk {
namespace {

// The disk cache across processes (a fresh CompileCache each time): an entry is reused, and one
// torn by a full disk or a killed writer is compiled again instead of being loaded.
TEST(CompileCacheFile, ATornEntryIsCompiledAgain) {
  test::TempDir dir;
  SimBackend be;
  bool cached = true;
  std::string key;
  const CompileRequest q{"src", "k.cu", {"-DX=1"}, {"k"}};
  CompileCache{dir.path()}.get(be, q, &cached, &key);
  EXPECT_FALSE(cached);
  const std::string file = dir.path() + "/" + key + ".bin";
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(CompileCache{dir.path()}.get(be, q, &cached).binary, "sim");
  EXPECT_TRUE(cached) << "a whole entry is reused";

  const std::string whole = read_file(dir.path() + "/" + key + ".bin", "cache entry");
  take_cache_repairs();
  for (const std::string& torn : {whole.substr(0, whole.size() - 1), whole + "x", std::string("sim"), std::string()}) {
    dir.write(key + ".bin", torn);
    EXPECT_EQ(CompileCache{dir.path()}.get(be, q, &cached).binary, "sim");
    EXPECT_FALSE(cached) << "a torn or old-format entry must be compiled again";
    EXPECT_EQ(take_cache_repairs().size(), 1u) << "and the case's results say so";
    EXPECT_EQ(read_file(dir.path() + "/" + key + ".bin", "cache entry"), whole) << "and rewritten whole";
  }
}

// Another key's whole, valid entry copied over this one's file is not taken for it.
TEST(CompileCacheFile, AnEntrySwappedInFromAnotherKeyIsCompiledAgain) {
  test::TempDir dir;
  SimBackend be;
  bool cached = true;
  std::string key_a, key_b;
  const CompileRequest a{"src a", "a.cu", {}, {"k"}}, b{"src b", "b.cu", {}, {"k"}};
  CompileCache{dir.path()}.get(be, a, &cached, &key_a);
  CompileCache{dir.path()}.get(be, b, &cached, &key_b);
  ASSERT_NE(key_a, key_b);
  std::filesystem::copy_file(dir.path() + "/" + key_b + ".bin", dir.path() + "/" + key_a + ".bin",
                             std::filesystem::copy_options::overwrite_existing);
  CompileCache{dir.path()}.get(be, a, &cached);
  EXPECT_FALSE(cached) << "b's entry under a's name must be compiled again";
  CompileCache{dir.path()}.get(be, a, &cached);
  EXPECT_TRUE(cached) << "and a's own entry written back";
}

// A header the source reaches through "../", outside every include folder, is part of what was
// compiled: editing it compiles again (the stale PASS of sage_attention with a broken
// attention/online_softmax.h).
TEST(CompileCacheFile, AHeaderReachedThroughParentFolderIsInTheKey) {
  test::TempDir cache, project;
  project.write("attention/online_softmax.h", "#define SCALE 2\n");
  project.write("paged/k.cu", "#include \"../attention/online_softmax.h\"\n");
  SimBackend be;
  const CompileRequest q{read_file(project.path() + "/paged/k.cu", "k"), project.path() + "/paged/k.cu", {"-I" + project.path() + "/paged"}, {"k"}};
  bool cached = true;
  std::string before, after;
  CompileCache{cache.path()}.get(be, q, &cached, &before);
  EXPECT_FALSE(cached);
  CompileCache{cache.path()}.get(be, q, &cached, &after);
  EXPECT_TRUE(cached) << "nothing changed";
  project.write("attention/online_softmax.h", "#define SCALE 0.5\n");
  CompileCache{cache.path()}.get(be, q, &cached, &after);
  EXPECT_FALSE(cached) << "the header it reaches through ../ changed";
  EXPECT_NE(before, after);
}

}  // namespace
}  // namespace hk
