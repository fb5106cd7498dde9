// CPU backend: the same kernel sources, compiled by the system C++ compiler into a shared
// library (backends/host/host_compiler) and run block by block on OS threads, each block's
// threads as fibers (backends/host/block_scheduler). Limits come from a declared profile
// (host_profile.h), so HW_LIMIT verdicts match the GPU the profile describes.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <cerrno>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <thread>

#include "platform/backend.h"
#include "platform/compiler.h"
#include "backends/host/block_scheduler.h"
#include "backends/host/dynamic_shared.h"
#include "backends/host/guarded_memory.h"
#include "backends/host/host_compiler.h"
#include "backends/host/host_params.h"
#include "backends/host/static_shared.h"
#include "backends/host/module_tls.h"
#include "backends/host/race_detector.h"
#include "process/descriptor_limit.h"
#include "contracts/race_report.h"
#include "platform/host_profile.h"
#include "process/memory_limit.h"
#include "util/threads.h"

namespace hk {
namespace {

constexpr size_t kFiberStackBytes = 256 * 1024;

struct LoadedKernel {
  host::BlockScheduler::Entry entry;
  int arity;
  std::vector<KernelParam> params;
  int64_t static_shared_bytes;
  void* library;  // its dlopen handle
};

std::string cpu_model() {
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) return "CPU";
  char line[512];
  std::string model = "CPU";
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      const char* colon = strchr(line, ':');
      if (colon) {
        model = colon + 1;
        model.erase(0, model.find_first_not_of(" \t"));
        model.erase(model.find_last_not_of(" \t\n") + 1);
      }
      break;
    }
  }
  fclose(f);
  return model;
}

// A kernel's fault kills the worker (a CRASH of that case only, as on a GPU); first it says in
// words what happened and where, for the CRASH message. Runs on an alternate stack so that a
// fiber's stack overflow can be reported too.
void on_kernel_fault(int sig, siginfo_t* info, void*) {
  const char* what = sig == SIGSEGV   ? "SIGSEGV, an illegal memory access (or a fiber stack overflow)"
                     : sig == SIGBUS  ? "SIGBUS, an invalid or misaligned memory access"
                     : sig == SIGILL  ? "SIGILL, __trap() or an illegal instruction"
                                      : "SIGFPE, an arithmetic fault";
  char buf[200];
  const int n = snprintf(buf, sizeof buf, "hkcheck host backend: the kernel raised %s at address %p\n", what, info->si_addr);
  if (n > 0) (void)!write(2, buf, static_cast<size_t>(n));
  // SA_RESETHAND restored the default action: returning re-executes the fault and ends the process.
}

void install_fault_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = &on_kernel_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigaction(sig, &sa, nullptr);
}

// Each OS thread that runs blocks gets its own signal stack.
struct AltSignalStack {
  std::vector<char> memory = std::vector<char>(64 * 1024);
  AltSignalStack() {
    stack_t st{};
    st.ss_sp = memory.data();
    st.ss_size = memory.size();
    sigaltstack(&st, nullptr);
  }
  ~AltSignalStack() {
    stack_t st{};
    st.ss_flags = SS_DISABLE;
    sigaltstack(&st, nullptr);
  }
};

class HostBackend final : public Backend {
 public:
  HostBackend(const HostOptions& opt) {
    const HostProfile* p = find_host_profile(opt.profile);
    if (!p) throw BackendUnavailable(fmt::format("unknown host profile '{}' (known: {})", opt.profile, host_profile_names()));
    profile_ = *p;
    compiler_ = open_compiler("host", profile_.arch, opt);
    threads_ = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // The detector orders accesses by happens-before, not by when they ran, so one OS thread
    // loses nothing and keeps its records free of locks and its reports the same run to run.
    if (opt.races) {
      races_ = std::make_unique<host::RaceDetector>();
      threads_ = 1;
    }
    runtime_ = host::BlockScheduler::runtime(profile_.warp_size);
    install_fault_handlers();
    utsname u{};
    uname(&u);
    info_.backend = "host";
    info_.name = "host " + profile_.name;
    info_.arch = profile_.arch;
    info_.driver_version = fmt::format("{} on {} {} ({} threads{}); limits of the {} profile: {}", cpu_model(), u.sysname, u.release,
                                       threads_, races_ ? ", race detection" : "", profile_.name, profile_.emulates);
    info_.runtime_version = compiler_->version();
    info_.max_threads_per_block = profile_.max_threads_per_block;
    info_.max_block = profile_.max_block;
    info_.max_grid = profile_.max_grid;
    info_.shared_per_block = profile_.shared_per_block;
    info_.shared_per_block_optin = profile_.shared_per_block_optin;
    info_.total_memory = static_cast<int64_t>(physical_memory());
    info_.multiprocessors = threads_;
    info_.warp_size = profile_.warp_size;
  }

  ~HostBackend() override {
    for (void* h : libraries_) dlclose(h);
    for (int fd : library_fds_) close(fd);
    for (const auto& [p, block] : allocations_) host::guarded_free(block);
  }

  const DeviceInfo& device() const override { return info_; }

  CompileOutput compile(const CompileRequest& request) override { return compiler_->compile(request); }

  Kernel load(const std::string& binary, const std::string& symbol) override {
    // The library is loaded from a memfd, never a file: a kernel process running as nobody may
    // have no folder it can write (kernel_server.h). dlopen knows a library by its path and hands
    // back an already loaded one for a known path, so each load gets a descriptor number never
    // used before, kept open as long as the library is loaded (libraries with thread-local
    // storage are never unloaded).
    const int fd = memfd_create("hkcheck-kernel", MFD_CLOEXEC);
    if (fd < 0) throw BackendError(fmt::format("cannot create a memfd for the kernel library: {}", std::strerror(errno)), false);
    bool written = true;
    for (size_t off = 0; off < binary.size() && written;) {
      const ssize_t n = ::write(fd, binary.data() + off, binary.size() - off);
      written = n > 0;
      off += written ? static_cast<size_t>(n) : 0;
    }
    const int kept = written ? fcntl(fd, F_DUPFD_CLOEXEC, next_library_fd_) : -1;
    const std::string why = kept < 0 ? std::strerror(errno) : "";
    close(fd);
    if (kept < 0 && descriptor_limit() != 0 && static_cast<unsigned long>(next_library_fd_) >= descriptor_limit())
      throw BackendError(fmt::format("cannot keep the kernel library open: the descriptor limit (ulimit -n) is {}, and the host backend "
                                     "keeps each loaded kernel library at a descriptor of {} or above; raise it (ulimit -n 4096)",
                                     descriptor_limit(), next_library_fd_),
                         false);
    if (kept < 0) throw BackendError(fmt::format("cannot keep the kernel library's memfd: {}", why), false);
    next_library_fd_ = kept + 1;
    library_fds_.push_back(kept);
    void* lib = dlopen(fmt::format("/proc/self/fd/{}", kept).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw BackendError(fmt::format("cannot load the kernel library: {}", dlerror()), false);
    libraries_.push_back(lib);
    const auto* abi = static_cast<const int*>(dlsym(lib, "hk_host_abi"));
    const auto* warp = static_cast<const int*>(dlsym(lib, "hk_host_warp_size"));
    auto bind = reinterpret_cast<void (*)(const hk_host_runtime*)>(dlsym(lib, "hk_host_bind"));
    if (!abi || !warp || !bind || *abi != HK_HOST_ABI_VERSION)
      throw BackendError("the kernel library lacks hkcheck's host ABI (was it built by another hkcheck?)", false);
    if (*warp != profile_.warp_size)
      throw BackendError(fmt::format("the kernel library was built for warp size {}, the profile has {}", *warp, profile_.warp_size), false);
    bind(&runtime_);
    auto arity = reinterpret_cast<int (*)()>(dlsym(lib, ("hk_host_arity_" + symbol).c_str()));
    auto fn = reinterpret_cast<host::BlockScheduler::Entry>(dlsym(lib, ("hk_host_entry_" + symbol).c_str()));
    auto params = reinterpret_cast<const char* (*)()>(dlsym(lib, ("hk_host_params_" + symbol).c_str()));
    if (!arity || !fn || !params)
      throw MissingEntry("the compiled library has no trampoline '" + symbol + "' (the entry was not requested at compile time)");
    kernels_.push_back(LoadedKernel{fn, arity(), host::parse_host_params(params()), host::static_shared_bytes_of_symbol(binary, symbol), lib});
    return &kernels_.back();
  }

  // Static __shared__ arrays count against the profile's shared memory as on the GPU.
  KernelAttributes attributes(Kernel k) override {
    return KernelAttributes{profile_.max_threads_per_block, static_cast<const LoadedKernel*>(k)->static_shared_bytes, 0};
  }



  void allow_dynamic_shared(Kernel, int64_t) override {}

  std::optional<std::vector<KernelParam>> parameters(Kernel k, size_t) override { return static_cast<const LoadedKernel*>(k)->params; }

  uint64_t alloc(size_t bytes) override {
    const host::GuardedBlock block = host::guarded_alloc(bytes);
    if (!block.data) throw BackendError(fmt::format("out of host memory allocating {} bytes", bytes), false);
    allocations_[block.data] = block;
    return reinterpret_cast<uint64_t>(block.data);
  }

  void free(uint64_t ptr) override {
    const auto it = allocations_.find(reinterpret_cast<void*>(ptr));
    if (it == allocations_.end()) return;
    host::guarded_free(it->second);
    allocations_.erase(it);
  }

  AllocationSlack slack(uint64_t ptr) override {
    const auto it = allocations_.find(reinterpret_cast<void*>(ptr));
    if (it == allocations_.end()) return {};
    return {host::guarded_slack_before(it->second.bytes), host::guarded_slack_after(it->second.bytes)};
  }

  void upload(uint64_t dst, const void* src, size_t bytes) override { std::memcpy(reinterpret_cast<void*>(dst), src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { std::memcpy(dst, reinterpret_cast<const void*>(src), bytes); }

  void launch(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block, int64_t shared_bytes,
              void** args) override {
    const auto* kernel = static_cast<const LoadedKernel*>(k);
    // The case's argument array ends with a null pointer, so a count that differs from the
    // kernel's signature is an error here rather than a read past the array.
    int nargs = 0;
    while (args[nargs]) ++nargs;
    if (nargs != kernel->arity)
      throw BackendError(fmt::format("the kernel takes {} arguments; the manifest passes {}", kernel->arity, nargs), false);
    const int64_t blocks = grid[0] * grid[1] * grid[2];
    const int threads_per_block = static_cast<int>(block[0] * block[1] * block[2]);
    const hk_host_dim3 gdim{static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2])};
    const hk_host_dim3 bdim{static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2])};
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::string error;
    int64_t error_block = blocks;  // of all the blocks that failed, the first in grid order: the same whatever the threads' timing
    std::string finding;           // of the blocks whose collectives read returned lanes, the first in grid order
    int64_t finding_block = blocks;
    std::mutex error_mu;
    auto work = [&] {
      int64_t b = -1;
      try {
        AltSignalStack alt_stack;
        host::BlockScheduler sched(threads_per_block, profile_.warp_size, kFiberStackBytes);
        host::DynamicShared shared(static_cast<size_t>(shared_bytes));
        void* dyn = shared.data();
        // The library's thread-local block is the static shared memory of the block this thread runs.
        const host::ModuleTls static_shared = host::module_tls(kernel->library);
        if (races_) sched.watch_races(races_.get());
        while (!failed && (b = next++) < blocks) {
          const hk_host_dim3 bidx{static_cast<unsigned>(b % grid[0]), static_cast<unsigned>(b / grid[0] % grid[1]),
                                  static_cast<unsigned>(b / (grid[0] * grid[1]))};
          if (races_)
            races_->begin_block(b, bidx, {reinterpret_cast<uintptr_t>(dyn), static_cast<size_t>(shared_bytes), "dynamic shared"},
                                {static_shared.base, static_shared.bytes, "shared"});
          shared.arm();
          if (static_shared.bytes) std::memset(reinterpret_cast<void*>(static_shared.base), host::kSharedPoison, static_shared.bytes);
          sched.run(bidx, bdim, gdim, dyn, kernel->entry, args);
          if (!sched.collective_finding().empty()) {
            std::lock_guard<std::mutex> lock(error_mu);
            if (b < finding_block) finding = sched.collective_finding(), finding_block = b;
          }
          if (std::string past = shared.check(fmt::format("({},{},{})", bidx.x, bidx.y, bidx.z)); !past.empty()) throw std::runtime_error(past);
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (b < error_block) error = e.what(), error_block = b;
        failed = true;
      }
    };
    if (races_) races_->begin_launch(watched_buffers(), gdim, bdim, profile_.warp_size);
    const int64_t workers = std::min<int64_t>(threads_, blocks);
    if (workers <= 1) work();  // the blocks on the calling thread
    else on_threads(static_cast<int>(workers), [&](int) { work(); });
    // A barrier deadlock is the host's picture of a hang: the launch is as unusable as after a fault.
    if (failed) throw BackendError(error, true);
    if (races_)
      if (std::optional<RaceReport> race = races_->take_report()) throw RacesFound(std::move(*race));
    if (!finding.empty()) throw LaunchFinding(finding);
  }

  void synchronize() override {}  // launches run to completion

 private:
  static std::vector<host::RaceDetector::Region> watched_buffers() {
    std::vector<host::RaceDetector::Region> out;
    for (const auto& [data, bytes] : host::live_guarded_blocks()) out.push_back({reinterpret_cast<uintptr_t>(data), bytes, "global"});
    return out;
  }

  HostProfile profile_;
  std::unique_ptr<host::RaceDetector> races_;
  std::unique_ptr<Compiler> compiler_;
  int threads_ = 1;
  hk_host_runtime runtime_{};
  DeviceInfo info_;
  std::vector<void*> libraries_;
  std::vector<int> library_fds_;  // the memfds the libraries were loaded from
  // The lowest number the next one may take: 64, or half the descriptor limit when that is lower
  // (ulimit -n 40), so that a low limit costs only how many libraries a worker keeps.
  int next_library_fd_ = descriptor_limit() == 0 ? 64 : static_cast<int>(std::clamp<unsigned long>(descriptor_limit() / 2, 8, 64));
  std::deque<LoadedKernel> kernels_;
  std::map<void*, host::GuardedBlock> allocations_;  // alloc and free come from the worker's one thread
};

}  // namespace

std::unique_ptr<Backend> open_host_backend(const HostOptions& opt) { return std::make_unique<HostBackend>(opt); }

}  // namespace hk
