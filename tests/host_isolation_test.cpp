// A host worker's kernels run in a kernel process (src/backends/host/kernel_process.h): the
// buffers are shared, everything else is not. Each test isolates a fresh host backend in this
// process, as the worker does, and checks one property the worker relies on.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "backends/host/isolated_backend.h"
#include "backends/host/kernel_server.h"
#include "test_util.h"

namespace hk {
namespace {

const char* kIsolationSource = R"(#include "hkcheck.h"
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
HK_KERNEL void twice(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.f * x[i];
}
// A __device__ counter that lives on from launch to launch, as a loaded GPU module's does.
__device__ int hk_launches = 0;
HK_KERNEL void count_launches(int* out) {
  if (threadIdx.x == 0) out[0] = ++hk_launches;
}
// What the kernel's process holds: its uid, whether descriptor 3 is open, its open descriptors.
HK_KERNEL void inspect(int* out) {
  if (threadIdx.x != 0) return;
  out[0] = static_cast<int>(getuid());
  out[1] = fcntl(3, F_GETFD) >= 0;
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) && n < 60) out[3 + n++] = atoi(e->d_name);
    closedir(d);
  }
  out[2] = n;
}
HK_KERNEL void segfault(int* out) {
  if (threadIdx.x == 0) *reinterpret_cast<volatile int*>(static_cast<long>(out[0]) * 0 + 8) = 1;
}
HK_KERNEL void exit3(int* out) {
  if (threadIdx.x == 0) exit(3);
}
HK_KERNEL void say_hello(int* out) {
  if (threadIdx.x == 0) printf("hello from the kernel process\n");
}
)";

int process_threads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

struct HostIsolation : ::testing::Test {
  std::unique_ptr<Backend> be;
  CompileOutput compiled;
  void SetUp() override {
    // A process that already runs threads (a GPU library that an earlier test in this binary
    // started, on a GPU machine) cannot fork the kernel process safely: the backend then refuses
    // isolation, rightly. These tests need a single-threaded process; gpu_run.sh's verify stage
    // runs them alone in a fresh one there, CI (no GPU library) runs them in the whole binary.
    if (const int threads = process_threads(); threads > 1)
      GTEST_SKIP() << "this test process already runs " << threads << " threads: run HostIsolation.* alone";
    be = open_backend("host", 0, HostOptions{"h100", 2});
    const std::string note = isolate_host_kernels(be);
    ASSERT_TRUE(note.empty() || note.find("root") != std::string::npos) << note;
    compiled = be->compile({kIsolationSource, "isolation.cu", {}, {"twice", "count_launches", "inspect", "segfault", "exit3", "say_hello"}});
    ASSERT_TRUE(compiled.ok) << compiled.log;
  }
  Backend::Kernel load(const std::string& entry) { return be->load(compiled.binary, compiled.symbols.at(entry)); }
  // Launches a one-block kernel over an int buffer of `n` and returns the buffer.
  std::vector<int> run_ints(const std::string& entry, size_t n = 64) { return run_ints(load(entry), n); }
  std::vector<int> run_ints(Backend::Kernel k, size_t n = 64) {
    const uint64_t d = be->alloc(n * 4);
    std::vector<int> host(n, 0);
    be->upload(d, host.data(), n * 4);
    void* args[] = {const_cast<uint64_t*>(&d), nullptr};
    be->launch(k, {1, 1, 1}, {32, 1, 1}, 0, args);
    be->download(host.data(), d, n * 4);
    be->free(d);
    return host;
  }
};

TEST_F(HostIsolation, BuffersAreSharedWithTheKernelProcess) {
  const int n = 1000;
  std::vector<float> x(n), out(n, -1.f);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i);
  const uint64_t dx = be->alloc(n * 4), dout = be->alloc(n * 4);
  be->upload(dx, x.data(), n * 4);
  int count = n;
  void* args[] = {const_cast<uint64_t*>(&dout), const_cast<uint64_t*>(&dx), &count, nullptr};
  be->launch(load("twice"), {4, 1, 1}, {256, 1, 1}, 0, args);
  be->download(out.data(), dout, n * 4);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.f * x[i]) << i;
  const std::vector<double> ms = be->time_launches(load("twice"), {4, 1, 1}, {256, 1, 1}, 0, args, 5);
  EXPECT_EQ(ms.size(), 5u);
  for (double t : ms) EXPECT_TRUE(std::isfinite(t) && t >= 0) << t;
  EXPECT_THROW(be->download(out.data(), dout + n * 4, 4096), BackendError) << "a copy past the buffer is refused";
  be->free(dx);
  be->free(dout);
}

TEST_F(HostIsolation, DeviceVariablesLiveOnFromLaunchToLaunch) {
  const Backend::Kernel k = load("count_launches");  // loaded once, as a worker's CompileCache does
  EXPECT_EQ(run_ints(k)[0], 1);
  EXPECT_EQ(run_ints(k)[0], 2) << "a LEAK verdict needs the module's state to outlive a launch";
}

TEST_F(HostIsolation, TheKernelProcessHoldsNoDescriptorOfTheWorker) {
  const std::vector<int> seen = run_ints("inspect");
  if (geteuid() == 0) EXPECT_EQ(seen[0], static_cast<int>(host::kKernelProcessId)) << "root leaves for nobody";
  EXPECT_EQ(seen[1], 0) << "descriptor 3 (the worker's protocol) is closed in the kernel process";
  for (int i = 0; i < seen[2]; ++i) {
    const int fd = seen[3 + i];
    EXPECT_TRUE(fd <= 2 || fd == host::kKernelChannelFd || fd >= 64) << "descriptor " << fd << " is open in the kernel process";
  }
}

TEST_F(HostIsolation, AFaultIsACrashThatSaysWhatHappened) {
  try {
    run_ints("segfault");
    FAIL() << "expected the kernel process to die";
  } catch (const BackendError& e) {
    EXPECT_TRUE(e.sticky);
    EXPECT_NE(std::string(e.what()).find("the kernel's process died during the launch: signal 11 (SIGSEGV"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the kernel raised SIGSEGV"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_ints("twice"), BackendError) << "a dead kernel process stays dead";
}

TEST_F(HostIsolation, AKernelThatExitsIsACrashNamingTheExitCode) {
  try {
    run_ints("exit3");
    FAIL() << "expected the kernel process to end";
  } catch (const BackendError& e) {
    EXPECT_TRUE(e.sticky);
    EXPECT_NE(std::string(e.what()).find("the kernel ended its process during the launch (exit code 3)"), std::string::npos) << e.what();
  }
}

TEST_F(HostIsolation, MissingEntriesAndWrongArgumentCountsAreErrorsOfTheCaseOnly) {
  EXPECT_THROW(be->load(compiled.binary, "no_such_kernel"), MissingEntry);
  const uint64_t d = be->alloc(16);
  void* args[] = {const_cast<uint64_t*>(&d), const_cast<uint64_t*>(&d), nullptr};
  try {
    be->launch(load("count_launches"), {1, 1, 1}, {32, 1, 1}, 0, args);
    FAIL() << "expected an argument-count error";
  } catch (const BackendError& e) {
    EXPECT_FALSE(e.sticky) << e.what();
  }
  be->free(d);
  EXPECT_GE(run_ints("count_launches")[0], 1) << "the kernel process goes on";
}

TEST_F(HostIsolation, TheKernelsOutputReachesTheWorkersStdout) {
  test::TempDir dir;
  const std::string path = dir.path() + "/stdout";
  fflush(stdout);
  const int saved = dup(1), file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(file, 0);
  dup2(file, 1);
  run_ints("say_hello");
  dup2(saved, 1);
  close(saved);
  close(file);
  EXPECT_EQ(test::slurp(path), "hello from the kernel process\n");
}

}  // namespace
}  // namespace hk
