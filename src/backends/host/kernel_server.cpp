#include "backends/host/kernel_server.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "platform/backend.h"
#include "contracts/race_report.h"
#include "backends/host/guarded_memory.h"
#include "backends/host/host_params.h"
#include "backends/host/kernel_channel.h"

namespace hk::host {
namespace {

// Stdin from /dev/null (the worker's stdin carries the requests and their ids), stdout and
// stderr to the worker's relay, the channel at kKernelChannelFd; nothing else stays open.
bool keep_only_own_descriptors(int sock, int out_fd) {
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0 || dup2(sock, kKernelChannelFd) < 0) return false;
  fcntl(kKernelChannelFd, F_SETFD, FD_CLOEXEC);
  if (close_range(3, kKernelChannelFd - 1, 0) != 0 || close_range(kKernelChannelFd + 1, ~0U, 0) != 0) {
    for (int fd = 3; fd < sysconf(_SC_OPEN_MAX); ++fd)
      if (fd != kKernelChannelFd) close(fd);
  }
  return true;
}

// The worker ignores what a kernel could send it; the kernel's own process keeps the defaults.
void default_signals() {
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGVTALRM, SIGPROF})
    signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Root leaves for kKernelProcessId: the kernel can then neither signal, trace nor read the
// memory and descriptors of hkcheck and its worker, nor write root's files. "" or why not.
std::string leave_root() {
  if (geteuid() != 0) return "";
  if (setgroups(0, nullptr) != 0 || setresgid(kKernelProcessId, kKernelProcessId, kKernelProcessId) != 0 ||
      setresuid(kKernelProcessId, kKernelProcessId, kKernelProcessId) != 0)
    return fmt::format("kernels run as root: the kernel process could not become uid {} ({})", kKernelProcessId, std::strerror(errno));
  return "";
}

class Server {
 public:
  explicit Server(Backend& local) : local_(local) {}

  KernelReply handle(const KernelRequest& q, const std::string& tail, int fd, std::string& reply_tail) {
    KernelReply r;
    r.seq = q.seq;
    try {
      switch (q.op) {
        case KernelOp::load: r.value = load(fd, q.bytes, tail, reply_tail); break;
        case KernelOp::map: r.value = map(fd, q.bytes); break;
        case KernelOp::unmap: unmap(q.handle); break;
        case KernelOp::launch: launch(q, tail); break;
        case KernelOp::time: reply_tail = time(q, tail, r); break;
      }
    } catch (const RacesFound& e) {
      r.code = KernelReplyCode::race;
      reply_tail += nlohmann::json(e.report).dump();
    } catch (const LaunchFinding& e) {
      r.code = KernelReplyCode::finding;
      reply_tail += e.what();
    } catch (const MissingEntry& e) {
      r.code = KernelReplyCode::missing_entry;
      reply_tail += e.what();
    } catch (const BackendError& e) {
      r.code = e.sticky ? KernelReplyCode::sticky : KernelReplyCode::error;
      reply_tail += e.what();
    } catch (const std::exception& e) {
      r.code = KernelReplyCode::error;
      reply_tail += e.what();
    }
    // The kernel's printf reaches the worker before the reply does.
    fflush(stdout);
    fflush(stderr);
    return r;
  }

 private:
  // reply_tail: the kernel's parameters (host_params.h), for the worker's check of the arguments.
  uint64_t load(int fd, uint64_t bytes, const std::string& symbol, std::string& reply_tail) {
    std::string binary(bytes, '\0');
    for (size_t off = 0; off < binary.size();) {
      const ssize_t n = pread(fd, binary.data() + off, binary.size() - off, static_cast<off_t>(off));
      if (n <= 0) throw BackendError("the kernel process could not read the kernel library it was sent", false);
      off += static_cast<size_t>(n);
    }
    kernels_.push_back(local_.load(binary, symbol));
    reply_tail = host_params_text(local_.parameters(kernels_.back(), 0).value_or(std::vector<KernelParam>{}));
    return kernels_.size();  // handles start at 1
  }

  uint64_t map(int fd, uint64_t bytes) {
    const GuardedBlock block = guarded_map(fd, bytes);
    if (!block.data) throw BackendError(fmt::format("the kernel process could not map a buffer of {} bytes", bytes), false);
    const auto address = reinterpret_cast<uint64_t>(block.data);
    buffers_[address] = block;
    return address;
  }

  void unmap(uint64_t address) {
    if (const auto it = buffers_.find(address); it != buffers_.end()) {
      guarded_free(it->second);
      buffers_.erase(it);
    }
  }

  Backend::Kernel kernel(uint64_t handle) const {
    if (handle == 0 || handle > kernels_.size()) throw BackendError("the worker named a kernel that was never loaded", false);
    return kernels_[handle - 1];
  }

  void launch(const KernelRequest& q, const std::string& bytes) {
    std::vector<void*> argv = arguments(q, bytes);
    local_.launch(kernel(q.handle), {q.grid[0], q.grid[1], q.grid[2]}, {q.block[0], q.block[1], q.block[2]}, q.shared_bytes, argv.data());
  }

  std::string time(const KernelRequest& q, const std::string& bytes, KernelReply& r) {
    std::vector<void*> argv = arguments(q, bytes);
    const std::vector<double> ms = local_.time_launches(kernel(q.handle), {q.grid[0], q.grid[1], q.grid[2]},
                                                        {q.block[0], q.block[1], q.block[2]}, q.shared_bytes, argv.data(), q.launches);
    r.times = static_cast<int32_t>(ms.size());
    return std::string(reinterpret_cast<const char*>(ms.data()), ms.size() * sizeof(double));
  }

  // Pointers to this request's arguments, null-terminated as the host backend expects: each
  // argument's bytes (q.args: their sizes) at an offset aligned for any parameter type.
  std::vector<void*> arguments(const KernelRequest& q, const std::string& bytes) {
    const int n = std::clamp(q.nargs, 0, kMaxKernelArgs);
    auto slots_of = [](uint64_t size) { return (size + sizeof(Slot) - 1) / sizeof(Slot); };
    size_t total = 0, slots = 0;
    for (int i = 0; i < n; ++i) total += q.args[i], slots += slots_of(q.args[i]);
    if (total != bytes.size() || total > kMaxArgumentBytes) throw BackendError("the worker sent arguments of the wrong size", false);
    slots_.assign(slots + 1, Slot{});
    std::vector<void*> argv;
    size_t from = 0, slot = 0;
    for (int i = 0; i < n; ++i) {
      char* dst = slots_[slot].bytes;
      bytes.copy(dst, q.args[i], from);
      argv.push_back(dst);
      from += q.args[i];
      slot += slots_of(q.args[i]);
    }
    argv.push_back(nullptr);
    return argv;
  }

  Backend& local_;
  std::vector<Backend::Kernel> kernels_;
  std::map<uint64_t, GuardedBlock> buffers_;
  struct alignas(kMaxArgumentAlign) Slot {  // one argument starts at each slot it takes
    char bytes[kMaxArgumentAlign];
  };
  std::vector<Slot> slots_;
};

}  // namespace

void serve_kernel_process(Backend& local, int sock, int out_fd, int worker_pid) {
  KernelReply hello;
  std::string note;
  if (!keep_only_own_descriptors(sock, out_fd)) _exit(120);
  default_signals();
  // Libraries stay open (host_backend.cpp): room for many in one worker.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  note = leave_root();
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);  // no setuid program gives root back
  prctl(PR_SET_PDEATHSIG, SIGKILL);        // after leaving root, which clears it
  if (getppid() != worker_pid) _exit(121);  // the worker died before that
  prctl(PR_SET_DUMPABLE, 0);               // other kernel processes cannot trace this one
  if (!send_packet(kKernelChannelFd, pack(hello, note))) _exit(122);
  Server server(local);
  for (;;) {
    std::string bytes, tail, reply_tail;
    int fd = -1;
    const ssize_t got = recv_packet(kKernelChannelFd, bytes, &fd);
    if (got == 0) _exit(0);  // the worker is done (or gone)
    if (got < 0) _exit(kKernelChannelLost);
    KernelRequest q;
    if (!unpack(bytes, q, tail)) _exit(123);
    const KernelReply r = server.handle(q, tail, fd, reply_tail);
    if (fd >= 0) close(fd);
    if (!send_packet(kKernelChannelFd, pack(r, reply_tail))) _exit(kKernelChannelLost);
  }
}

}  // namespace hk::host
