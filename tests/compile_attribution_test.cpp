// A file compiled once for all its entries: errors are put on the function they are in, and
// an entry that names no kernel leaves the file's other entries compiled.
#include "compile/compile_attribution.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

const char* kSource = R"(// two kernels and a helper; braces in comments { and strings "}" do not count
#include <cuda_bf16.h>
template <typename T> __device__ T twice(T v) { return v + v; }

template <typename T, int N>
__global__ void __launch_bounds__(256) good(T* y, const T* x) {
  if (threadIdx.x < N) {
    y[threadIdx.x] = twice(x[threadIdx.x]);
  }
}

extern "C" __global__ void broken(float* y) {
  for (int i = 0; i < 4; ++i) { y[i] = "}"[0]; }
  y[0] = undefined_thing;
}
)";

TEST(CompileAttribution, FindsFunctionsAndTheirLines) {
  const auto fns = source_functions(kSource);
  ASSERT_EQ(fns.size(), 3u);
  EXPECT_EQ(fns[0].name, "twice");
  EXPECT_EQ(fns[1].name, "good");
  EXPECT_EQ(fns[1].first_line, 6);
  EXPECT_EQ(fns[1].last_line, 10);
  EXPECT_EQ(fns[2].name, "broken");
  EXPECT_EQ(fns[2].first_line, 12);
  EXPECT_EQ(fns[2].last_line, 15);
}

TEST(CompileAttribution, EntryFunctionDropsNamespacesAndTemplateArguments) {
  EXPECT_EQ(entry_function("ns::act_and_mul<float, silu<float>, true>"), "act_and_mul");
  EXPECT_EQ(entry_function("plain"), "plain");
}

TEST(CompileAttribution, NvrtcErrorIsOwnForItsKernelAndForeignForTheOther) {
  const std::string log = "k/two.cu(14): error: identifier \"undefined_thing\" is undefined\n    y[0] = undefined_thing;\n";
  const std::vector<std::string> entries = {"good<float, 4>", "broken"};
  const std::string own = compile_error_summary(log, kSource, "k/two.cu", "broken", entries);
  EXPECT_NE(own.find("broken does not compile: k/two.cu(14)"), std::string::npos) << own;
  const std::string other = compile_error_summary(log, kSource, "k/two.cu", "good<float, 4>", entries);
  EXPECT_NE(other.find("has no error of its own"), std::string::npos) << other;
  EXPECT_NE(other.find("because of broken"), std::string::npos) << other;
}

TEST(CompileAttribution, GccAndPtxasErrorsAreAttributedToo) {
  const std::vector<std::string> entries = {"good<float, 4>", "broken"};
  const std::string gcc = "k/two.cu:8:20: error: 'twice' was not declared in this scope\n";
  EXPECT_NE(compile_error_summary(gcc, kSource, "k/two.cu", "broken", entries).find("because of good"), std::string::npos);
  const std::string ptxas = "ptxas error   : Entry function '_Z4goodIfLi4EEvPT_PKS0_' uses too much shared data (0x4b000 bytes, 0xc000 max)\n";
  EXPECT_NE(compile_error_summary(ptxas, kSource, "k/two.cu", "good<float, 4>", entries).find("good<float, 4> does not compile"),
            std::string::npos);
  EXPECT_NE(compile_error_summary(ptxas, kSource, "k/two.cu", "broken", entries).find("because of good"), std::string::npos);
}

TEST(CompileAttribution, AnErrorInAHeaderTemplateBelongsToTheFunctionThatInstantiatedIt) {
  const std::vector<std::string> entries = {"good<float, 4>", "broken"};
  const std::string gcc =
      "include/hk_host.h: In instantiation of 'T atomicAdd(T*, T) [with T = float]':\n"
      "k/two.cu:13:34:   required from here\n"
      "include/hk_host.h:126:28: error: operand type 'float*' is incompatible\n";
  EXPECT_NE(compile_error_summary(gcc, kSource, "k/two.cu", "broken", entries).find("broken does not compile"), std::string::npos);
  const std::string nvrtc =
      "cub/block.cuh(40): error: no instance of overloaded function\n"
      "          detected during instantiation of \"void good<T,N>(T *, const T *) [with T=float, N=4]\" at line 8 of k/two.cu\n";
  EXPECT_NE(compile_error_summary(nvrtc, kSource, "k/two.cu", "good<float, 4>", entries).find("good<float, 4> does not compile"),
            std::string::npos);
}

TEST(CompileAttribution, AnEntryThatNamesNothingIsLeftOutAndTheRestCompiles) {
  std::vector<std::vector<std::string>> asked;
  auto compiler = [&](const CompileRequest& q) {
    asked.push_back(q.entries);
    CompileOutput out;
    for (const std::string& e : q.entries)
      if (e == "typo<float>")
        out.log += "__nv_name_map(3): error: Error in parsing name expression for lowered name lookup. Input name expression was: \" typo < float >\"\n";
    out.ok = out.log.empty();
    for (const std::string& e : q.entries) out.symbols[e] = "sym_" + e;
    return out;
  };
  const CompileOutput out = compile_entries(compiler, {kSource, "k/two.cu", {}, {"broken", "typo<float>"}});
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked.back(), std::vector<std::string>{"broken"});
  EXPECT_EQ(out.symbols.count("broken"), 1u);
  ASSERT_EQ(out.entry_errors.count("typo<float>"), 1u);
  EXPECT_NE(out.entry_errors.at("typo<float>").find("names no kernel of k/two.cu"), std::string::npos);
}

TEST(CompileAttribution, ARealErrorIsNotRetried) {
  int calls = 0;
  auto compiler = [&](const CompileRequest&) {
    ++calls;
    return CompileOutput{false, "", "k/two.cu(14): error: identifier \"undefined_thing\" is undefined\n", {}, {}};
  };
  EXPECT_FALSE(compile_entries(compiler, {kSource, "k/two.cu", {}, {"broken", "good<float, 4>"}}).ok);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace hk
