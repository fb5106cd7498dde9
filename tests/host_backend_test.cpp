// The host backend runs real kernels on the CPU: shared memory, barriers, warp collectives and
// atomics must behave as on a GPU, for warp sizes 32 and 64.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <csignal>
#include <unistd.h>
#include <sys/wait.h>
#include <fstream>
#include <numeric>
#include <thread>
#include <vector>

#include "platform/backend.h"
#include "backends/host/host_compiler.h"
#include "process/orphans.h"
#include "test_util.h"

namespace hk {
namespace {

const char* kSource = R"(#include "hkcheck.h"
// Per block: the sum of x (warp shuffles + shared memory), x reversed through dynamic shared
// memory (needs the barrier), and the count of positive values (ballots + a global atomic).
HK_KERNEL void block_stats(float* sums, float* reversed, int* positives, const float* x) {
  HK_DYNAMIC_SHARED(float, tile);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = x[i];
  tile[threadIdx.x] = v;
  __syncthreads();
  reversed[i] = tile[blockDim.x - 1 - threadIdx.x];
  const float s = hk::block_sum(v);
  if (threadIdx.x == 0) sums[blockIdx.x] = s;
  const u64 b = hk::ballot(v > 0.f);
  if (hk::lane_id() == 0) atomicAdd(positives, __popcll(b));
}
// Half a warp waits at __syncthreads, the other half at a shuffle: no barrier can ever open.
HK_KERNEL void divergent_barrier(float* out) {
  if (threadIdx.x % HK_WARP_SIZE < HK_WARP_SIZE / 2) __syncthreads();
  else out[0] = hk::shfl_xor(1.0f, 1);
}
HK_KERNEL void two_barrier_sites(float* out) {
  if (threadIdx.x < 64) {
    out[1] = 1.0f;
    __syncthreads();
  } else {
    __syncthreads();
    out[2] = 2.0f;
  }
}
)";

struct HostBackendTest : ::testing::TestWithParam<const char*> {
  std::unique_ptr<Backend> be;
  void SetUp() override { be = open_backend("host", 0, HostOptions{GetParam(), 2}); }
  CompileOutput compile() { return be->compile({kSource, "block_stats.cu", {}, {"block_stats", "divergent_barrier", "two_barrier_sites"}}); }
  Backend::Kernel load(const std::string& entry) {
    const CompileOutput c = compile();
    EXPECT_TRUE(c.ok) << c.log;
    return be->load(c.binary, c.symbols.at(entry));
  }
};

TEST_P(HostBackendTest, SharedMemoryBarriersAndWarpCollectivesMatchTheCpu) {
  const int blocks = 5, threads = 256, n = blocks * threads;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i * 37 % 101) - 50) / 8.0f;  // exact in f32 sums
  Backend::Kernel k = load("block_stats");
  uint64_t d_sums = be->alloc(blocks * 4), d_rev = be->alloc(n * 4), d_pos = be->alloc(4), d_x = be->alloc(n * 4);
  const int zero = 0;
  be->upload(d_x, x.data(), n * 4);
  be->upload(d_pos, &zero, 4);
  std::vector<float> poison(n, std::nanf(""));
  be->upload(d_rev, poison.data(), n * 4);
  be->upload(d_sums, poison.data(), blocks * 4);
  void* args[] = {&d_sums, &d_rev, &d_pos, &d_x, nullptr};
  be->launch(k, {blocks, 1, 1}, {threads, 1, 1}, threads * 4, args);
  be->synchronize();
  std::vector<float> sums(blocks), rev(n);
  int positives = -1;
  be->download(sums.data(), d_sums, blocks * 4);
  be->download(rev.data(), d_rev, n * 4);
  be->download(&positives, d_pos, 4);
  for (int b = 0; b < blocks; ++b) {
    const float expect = std::accumulate(x.begin() + b * threads, x.begin() + (b + 1) * threads, 0.0f);
    EXPECT_EQ(sums[b], expect) << "block " << b;
    for (int t = 0; t < threads; ++t) ASSERT_EQ(rev[b * threads + t], x[b * threads + threads - 1 - t]) << b << "," << t;
  }
  EXPECT_EQ(positives, std::count_if(x.begin(), x.end(), [](float v) { return v > 0; }));
}

TEST_P(HostBackendTest, ADivergentBarrierIsReportedNotHung) {
  Backend::Kernel k = load("divergent_barrier");
  uint64_t d = be->alloc(4);
  void* args[] = {&d, nullptr};
  try {
    be->launch(k, {1, 1, 1}, {128, 1, 1}, 0, args);
    FAIL() << "expected a deadlock error";
  } catch (const BackendError& e) {
    EXPECT_TRUE(e.sticky);
    EXPECT_NE(std::string(e.what()).find("barrier deadlock"), std::string::npos) << e.what();
  }
}

// Every thread arrives at a __syncthreads, but at two different ones: undefined on a GPU.
TEST_P(HostBackendTest, ThreadsAtTwoDifferentBarriersAreReported) {
  Backend::Kernel k = load("two_barrier_sites");
  uint64_t d = be->alloc(16);
  void* args[] = {&d, nullptr};
  try {
    be->launch(k, {1, 1, 1}, {128, 1, 1}, 0, args);
    FAIL() << "expected a divergent-barrier error";
  } catch (const BackendError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("divergent barrier in block (0,0,0): 64 threads wait at the __syncthreads of block_stats.cu:"), std::string::npos)
        << what;
    EXPECT_NE(what.find("and 64 at the one of block_stats.cu:"), std::string::npos) << what;
  }
}

// When every block fails, the report names the first block in grid order, whichever thread failed
// first: a message that tests and diffs can rely on.
TEST_P(HostBackendTest, AFailureInEveryBlockIsReportedForTheFirstBlock) {
  Backend::Kernel k = load("two_barrier_sites");
  uint64_t d = be->alloc(16);
  void* args[] = {&d, nullptr};
  for (int launch = 0; launch < 10; ++launch) {
    try {
      be->launch(k, {16, 1, 1}, {128, 1, 1}, 0, args);
      FAIL() << "expected a divergent-barrier error";
    } catch (const BackendError& e) {
      ASSERT_NE(std::string(e.what()).find("divergent barrier in block (0,0,0)"), std::string::npos) << "launch " << launch << ": " << e.what();
    }
  }
}

TEST_P(HostBackendTest, ArgumentCountMustMatchTheSignature) {
  Backend::Kernel k = load("block_stats");
  uint64_t d = be->alloc(4);
  void* args[] = {&d, &d, nullptr};
  EXPECT_THROW(be->launch(k, {1, 1, 1}, {32, 1, 1}, 0, args), BackendError);
}

// The host backend knows each parameter's C++ type, so the manifest's scalars are checked by
// kind and size, not only counted (kernel_params.h).
TEST_P(HostBackendTest, ParametersAreTheKernelsOwnTypes) {
  const char* source = R"(#include "hkcheck.h"
enum class Mode : unsigned char { a, b };
HK_KERNEL void signature(float* out, const int* idx, int n, long long m, unsigned u, double d, float f, Mode mode, bool flag) {}
HK_KERNEL void no_parameters() {}
)";
  const CompileOutput c = be->compile({source, "signature.cu", {}, {"signature", "no_parameters"}});
  ASSERT_TRUE(c.ok) << c.log;
  const auto params = be->parameters(be->load(c.binary, c.symbols.at("signature")), 0);
  ASSERT_TRUE(params);
  const std::vector<std::pair<ParamKind, size_t>> want = {
      {ParamKind::pointer, 8},      {ParamKind::pointer, 8},  {ParamKind::signed_int, 4},   {ParamKind::signed_int, 8}, {ParamKind::unsigned_int, 4},
      {ParamKind::floating, 8},     {ParamKind::floating, 4}, {ParamKind::unsigned_int, 1}, {ParamKind::other, 1}};
  ASSERT_EQ(params->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((*params)[i].kind, want[i].first) << i;
    EXPECT_EQ((*params)[i].bytes, want[i].second) << i;
  }
  EXPECT_EQ((*params)[0].type, "float*");
  EXPECT_EQ((*params)[2].type, "int");
  EXPECT_NE((*params)[3].type.find("long long"), std::string::npos) << (*params)[3].type;
  EXPECT_EQ((*params)[5].type, "double");
  EXPECT_EQ((*params)[7].type, "Mode");
  EXPECT_EQ((*params)[8].type, "bool");
  const auto none = be->parameters(be->load(c.binary, c.symbols.at("no_parameters")), 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(HostBackendTest, MissingEntryIsNamed) {
  const CompileOutput c = compile();
  ASSERT_TRUE(c.ok) << c.log;
  EXPECT_THROW(be->load(c.binary, "no_such_kernel"), MissingEntry);
}

TEST_P(HostBackendTest, AnEntryThatNamesNoKernelIsACompileErrorNamingIt) {
  const CompileOutput c = be->compile({kSource, "block_stats.cu", {}, {"block_stats", "no_such_kernel<float>"}});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.log.find("<entry 'no_such_kernel<float>'>"), std::string::npos) << c.log;
}

// A plain CUDA source, as authors write it: no hkcheck header, C++ kernels and a template.
const char* kPlainSource = R"(
template <typename T, int Scale> __global__ void __launch_bounds__(256) scale(T* y, const T* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * T(Scale);
}
__global__ void negate(float* y, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = -x[i];
}
)";

TEST_P(HostBackendTest, PlainCudaKernelsAndTemplatesRunByName) {
  const CompileOutput c = be->compile({kPlainSource, "plain.cu", {}, {"scale<float, 3>", "scale<double, 2>", "negate"}});
  ASSERT_TRUE(c.ok) << c.log;
  const int n = 100;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = 0.25f * static_cast<float>(i - 40);
  const uint64_t dx = be->alloc(n * 4), dy = be->alloc(n * 4);
  be->upload(dx, x.data(), n * 4);
  int count = n;
  void* args[] = {const_cast<uint64_t*>(&dy), const_cast<uint64_t*>(&dx), &count, nullptr};
  be->launch(be->load(c.binary, c.symbols.at("scale<float, 3>")), {2, 1, 1}, {64, 1, 1}, 0, args);
  be->synchronize();
  be->download(y.data(), dy, n * 4);
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 3.0f * x[i]) << i;
  be->launch(be->load(c.binary, c.symbols.at("negate")), {2, 1, 1}, {64, 1, 1}, 0, args);
  be->synchronize();
  be->download(y.data(), dy, n * 4);
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], -x[i]) << i;
  be->free(dx);
  be->free(dy);
}

// Collectives around lanes that return early: reading one that left before the collective, or a
// ballot whose mask names one, is reported with its line and lanes when the launch ends; lanes
// that end after taking part (every lane of a butterfly ends at its own time) and a mask of the
// live lanes only are not.
const char* kEarlyReturnSource = R"(#include "hkcheck.h"
HK_KERNEL void shuffle_after_return(float* out) {
  if (threadIdx.x >= 20) return;
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1.0f, 16);
}
HK_KERNEL void ballot_after_return(float* out) {
  if (threadIdx.x % 32 >= 16) return;
  out[threadIdx.x] = (float)__popcll(__ballot_sync(0xffffffffu, 1));
}
HK_KERNEL void ballot_of_live_lanes(float* out) {
  if (threadIdx.x % 32 >= 16) return;
  out[threadIdx.x] = (float)__popcll(__ballot_sync(0x0000ffffu, 1));
}
HK_KERNEL void butterfly_then_end(float* out) {
  float v = 1.0f;
  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
  out[threadIdx.x] = v;
}
)";

TEST_P(HostBackendTest, ACollectiveReadingLanesThatReturnedIsReported) {
  const std::vector<std::string> entries = {"shuffle_after_return", "ballot_after_return", "ballot_of_live_lanes", "butterfly_then_end"};
  const CompileOutput c = be->compile({kEarlyReturnSource, "early_return.cu", {}, entries});
  ASSERT_TRUE(c.ok) << c.log;
  const uint64_t d = be->alloc(64 * 4);
  void* args[] = {const_cast<uint64_t*>(&d), nullptr};
  auto finding = [&](const std::string& entry) -> std::string {
    try {
      be->launch(be->load(c.binary, c.symbols.at(entry)), {1, 1, 1}, {32, 1, 1}, 0, args);
    } catch (const LaunchFinding& e) {
      return e.what();
    }
    return "";
  };
  const std::string shuffle = finding("shuffle_after_return");
  // Lanes 0..3 read the live lanes 16..19; lane 4 is the first to read one that returned.
  EXPECT_NE(shuffle.find("__shfl_down_sync at early_return.cu:4 in block (0,0,0), warp 0: lane 4 reads lane(s) 20, which returned"),
            std::string::npos)
      << shuffle;
  const std::string ballot = finding("ballot_after_return");
  EXPECT_NE(ballot.find("__ballot_sync at early_return.cu:8"), std::string::npos) << ballot;
  EXPECT_NE(ballot.find("has in its mask lane(s) 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"), std::string::npos) << ballot;
  EXPECT_EQ(finding("ballot_of_live_lanes"), "");
  EXPECT_EQ(finding("butterfly_then_end"), "");
  be->free(d);
}

TEST_P(HostBackendTest, CompileErrorsPointAtTheKernelFile) {
  const CompileOutput c = be->compile({"#include \"hkcheck.h\"\nHK_KERNEL void k(float* o) { o[0] = ; }\n", "kernels/x/broken.cu", {}, {"k"}});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.log.rfind("kernels/x/broken.cu:2:", 0), 0u) << c.log;
}

// A template explosion can make log lines of megabytes; they are reported like any other (the
// log's clean-up once recursed per character of a line and could overflow the stack).
// A compile whose process is killed (SIGKILL: nothing of its own runs) takes the compiler along.
TEST(HostCompiler, ACompilerDiesWithTheProcessThatStartedIt) {
  test::TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  const pid_t starter = fork();
  if (starter == 0) {
    host::run_command({"sh", "-c", "echo $$ > " + pid_file + ".tmp && mv " + pid_file + ".tmp " + pid_file + " && exec sleep 30"},
                      dir.path() + "/log");
    _exit(0);
  }
  std::string pid_text;
  for (int i = 0; i < 500 && pid_text.empty(); ++i, usleep(10000)) pid_text = test::slurp(pid_file);
  ASSERT_FALSE(pid_text.empty()) << "the command never started";
  const pid_t compiler = std::stoi(pid_text);
  kill(starter, SIGKILL);
  waitpid(starter, nullptr, 0);
  const bool gone = test::gone_within(compiler, 3000);
  EXPECT_TRUE(gone) << "the command outlived the process that started it";
  if (!gone) kill(compiler, SIGKILL);
}

// Reference libraries compile while workers come and go: an orphan sweep (orphans.h) in the
// meantime must leave a compile alone, and a command whose process is reaped elsewhere must end
// its wait, never spin on it. In a child process, since a sweep ends all of a process's children.
// A command's memory bound (--memory-limit for reference compiles) holds what it starts: an
// allocation past it fails, and the same one without a bound succeeds.
TEST(HostCompiler, ACommandsMemoryBoundHoldsWhatItStarts) {
  test::TempDir dir;
  const std::string log = dir.path() + "/log";
  const std::vector<std::string> grow = {"sh", "-c", "head -c 400000000 /dev/zero | tail -c 1 >/dev/null; dd if=/dev/zero bs=300M count=1 of=/dev/null 2>&1"};
  const host::CommandRun bounded = host::run_command(grow, log, host::CommandBounds{60, 128u << 20});
  EXPECT_NE(bounded.exit_code, 0) << bounded.output;
  const host::CommandRun free_run = host::run_command(grow, log, host::CommandBounds{60, 0});
  EXPECT_EQ(free_run.exit_code, 0) << free_run.output;
}

TEST(HostCompiler, AnOrphanSweepLeavesACompileAlone) {
  const pid_t runner = fork();
  if (runner == 0) {
    std::thread sweep([] {
      usleep(200000);
      end_orphans_when_no_worker();
    });
    const host::CommandRun r = host::run_command({"sh", "-c", "sleep 1; exit 3"}, "/dev/null");
    sweep.join();
    _exit(r.exit_code == 3 ? 0 : 10 + (r.exit_code & 0x7f));
  }
  int st = 0;
  pid_t got = 0;
  for (int i = 0; i < 1000 && (got = waitpid(runner, &st, WNOHANG)) == 0; ++i) usleep(10000);
  if (got == 0) {
    kill(runner, SIGKILL);
    waitpid(runner, &st, 0);
    FAIL() << "the command's wait never ended";
  }
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "the compile was ended by the sweep (exit " << WEXITSTATUS(st) - 10 << ")";
}

TEST(HostCompiler, FoldersOfDeadCompilesAreRemovedAndLiveOnesKept) {
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const auto tmp = std::filesystem::temp_directory_path();
  const auto abandoned = tmp / ("hkcheck-host-" + std::to_string(dead) + "-test"), live = tmp / ("hkcheck-host-" + std::to_string(getpid()) + "-test");
  std::filesystem::create_directories(abandoned / "sub");
  std::filesystem::create_directories(live);
  host::remove_abandoned_compile_folders();
  EXPECT_FALSE(std::filesystem::exists(abandoned));
  EXPECT_TRUE(std::filesystem::exists(live));
  std::filesystem::remove_all(live);
}

TEST(HostCompiler, AHugeCompileLogLineIsReported) {
  const std::string name(1 << 20, 'q');
  const auto be = open_backend("host", 0, HostOptions{"h100", 1});
  const CompileOutput c = be->compile({"void f() {\n  " + name + " = 1;\n}\n", "huge.cu", {}, {}});
  EXPECT_FALSE(c.ok);
  EXPECT_GT(c.log.size(), size_t{1} << 20) << "a line of a megabyte";
  EXPECT_EQ(c.log.rfind("huge.cu:2:", 0), 0u) << c.log.substr(0, 200);
}

// CUDA authors compile with -DT=float or -DN=256. The prelude names none of its own parameters
// like that, so such macros neither break it nor keep g++ from using its precompiled header
// (which -Winvalid-pch would report: "not used because `T' is defined").
TEST(HostCompiler, UsersMacrosNeitherBreakThePreludeNorItsPrecompiledHeader) {
  test::TempDir cache;
  HostOptions opt{"h100", 1};
  opt.cache_dir = cache.path();
  const auto be = open_backend("host", 0, opt);
  const char* source = R"(#include "hkcheck.h"
HK_KERNEL void scaled_sums(T* y, const T* x) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = hk::warp_sum(x[i]) * (T)N + (T)hk::block_sum(x[i]);
}
)";
  const std::vector<std::string> macros = {"-DT=float", "-DN=256", "-DA=1", "-DB=double", "-DF=float", "-DI=3", "-DOp=int",
                                           "-DSize=4",  "-DTo=int", "-DFrom=int", "-Winvalid-pch"};
  const CompileOutput c = be->compile({source, "macros.cu", macros, {"scaled_sums"}});
  ASSERT_TRUE(c.ok) << c.log;
  EXPECT_EQ(c.log.find("not used"), std::string::npos) << c.log;
  bool precompiled = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cache.path()))
    precompiled |= e.path().filename() == "hk_host.h.gch";
  EXPECT_TRUE(precompiled) << "no precompiled prelude under " << cache.path();
}

INSTANTIATE_TEST_SUITE_P(Profiles, HostBackendTest, ::testing::Values("h100", "mi325x"));

// A write far past an allocation faults at once, as an illegal address does on a GPU; the end
// of the allocation itself (where the 256-byte guard pattern goes) is writable.
TEST(HostBackend, AWriteFarPastAnAllocationFaults) {
  const auto be = open_backend("host", 0, HostOptions{"h100", 1});
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{4096}, size_t{100000}}) {
    char* p = reinterpret_cast<char*>(be->alloc(bytes));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
    p[0] = 1, p[bytes - 1] = 1;
    EXPECT_DEATH(p[bytes + 4096] = 1, "") << bytes << " bytes";
    be->free(reinterpret_cast<uint64_t>(p));
  }
}

// The slack the backend reports is exactly what a kernel can write around a buffer without a
// fault: from the page boundary to the buffer, and from its end to the guard pages. case_exec
// guards all of it, so a write 260 or 3000 bytes before an output is seen.
TEST(HostBackend, TheSlackOfAnAllocationIsAllItsWritableBytes) {
  const auto be = open_backend("host", 0, HostOptions{"h100", 1});
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t bytes : {size_t{512}, size_t{612}, size_t{4096}, size_t{100000}}) {
    char* p = reinterpret_cast<char*>(be->alloc(bytes));
    const AllocationSlack slack = be->slack(reinterpret_cast<uint64_t>(p));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p - slack.before) % page, 0u) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p + bytes + slack.after) % 256, 0u) << bytes;
    p[-static_cast<ptrdiff_t>(slack.before)] = 1, p[bytes + slack.after - 1] = 1;
    EXPECT_DEATH(p[-static_cast<ptrdiff_t>(slack.before) - 1] = 1, "") << bytes;
    EXPECT_DEATH(p[bytes + slack.after] = 1, "") << bytes;
    be->free(reinterpret_cast<uint64_t>(p));
  }
  EXPECT_EQ(be->slack(12345).before, 0u) << "an address alloc() never gave has none";
}

TEST(HostBackend, DeclaresTheProfilesLimits) {
  const auto h100 = open_backend("host", 0, HostOptions{"h100", 1});
  EXPECT_EQ(h100->device().warp_size, 32);
  EXPECT_EQ(h100->device().shared_per_block_optin, 232448);
  EXPECT_EQ(h100->device().arch, "sm_90");
  const auto mi = open_backend("host", 0, HostOptions{"mi325x", 1});
  EXPECT_EQ(mi->device().warp_size, 64);
  EXPECT_EQ(mi->device().shared_per_block_optin, 65536);
  EXPECT_EQ(mi->device().arch, "gfx942");
  // gfx950: the LDS that lets the big-tile kernels run with 64-lane wavefronts.
  const auto mi355x = open_backend("host", 0, HostOptions{"mi355x", 1});
  EXPECT_EQ(mi355x->device().warp_size, 64);
  EXPECT_EQ(mi355x->device().shared_per_block_optin, 163840);
  EXPECT_EQ(mi355x->device().arch, "gfx950");
  EXPECT_THROW(open_backend("host", 0, HostOptions{"no_such_gpu", 1}), BackendUnavailable);
}

}  // namespace
}  // namespace hk
