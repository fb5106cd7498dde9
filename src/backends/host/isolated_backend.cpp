#include "backends/host/isolated_backend.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>

#include "platform/backend.h"
#include "backends/host/guarded_memory.h"
#include "backends/host/host_params.h"
#include "backends/host/kernel_process.h"
#include "backends/host/static_shared.h"

namespace hk {
namespace {

using host::KernelOp;
using host::KernelRequest;

// A buffer as this process sees it: the memfd's pages mapped here, the device address (the
// kernel process's) of its first usable byte.
struct SharedBuffer {
  char* data = nullptr;  // at the device address
  void* mapping = nullptr;
  size_t mapping_bytes = 0, usable = 0;
  size_t bytes = 0;  // as asked for
  // The mapping's bytes before data (guarded: Backend::slack): upload and download reach them.
  size_t before() const { return static_cast<size_t>(data - static_cast<char*>(mapping)); }
};

int memfd_with(const std::string& name, size_t bytes) {
  const int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) throw BackendError(fmt::format("cannot create shared memory for {}: {}", name, std::strerror(errno)), false);
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    throw BackendError(fmt::format("cannot size shared memory of {} bytes for {}: {}", bytes, name, std::strerror(errno)), false);
  }
  return fd;
}

class IsolatedHostBackend final : public Backend {
 public:
  explicit IsolatedHostBackend(std::unique_ptr<Backend> local) : local_(std::move(local)), kernels_(*local_) {
    info_ = local_->device();
  }
  ~IsolatedHostBackend() override {
    for (const auto& [address, b] : buffers_) munmap(b.mapping, b.mapping_bytes);
  }

  const std::string& note() const { return kernels_.note(); }
  const DeviceInfo& device() const override { return info_; }
  CompileOutput compile(const CompileRequest& request) override { return local_->compile(request); }
  // The profile's limits; the kernel's own __shared__ arrays, read from its library here.
  KernelAttributes attributes(Kernel k) override {
    const auto it = static_shared_.find(k);
    return KernelAttributes{info_.max_threads_per_block, it == static_shared_.end() ? 0 : it->second, 0};
  }
  void allow_dynamic_shared(Kernel, int64_t) override {}
  // As the kernel process read them from the library: what the kernel itself says, which only
  // serves to catch a manifest's mistake, never to judge.
  std::optional<std::vector<KernelParam>> parameters(Kernel k, size_t) override {
    const auto it = params_.find(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(k)));
    if (it == params_.end()) return std::nullopt;
    return it->second;
  }

  Kernel load(const std::string& binary, const std::string& symbol) override {
    const int fd = memfd_with("hkcheck-kernel-library", binary.size());
    bool written = true;
    for (size_t off = 0; off < binary.size() && written;) {
      const ssize_t n = pwrite(fd, binary.data() + off, binary.size() - off, static_cast<off_t>(off));
      written = n > 0;
      off += written ? static_cast<size_t>(n) : 0;
    }
    KernelRequest q;
    q.op = KernelOp::load;
    q.bytes = binary.size();
    try {
      if (!written) throw BackendError(std::string("cannot write the kernel library to shared memory: ") + std::strerror(errno), false);
      std::string params;
      const uint64_t handle = kernels_.call(q, symbol, fd, &params).value;
      close(fd);
      params_[handle] = host::parse_host_params(params);
      const Kernel k = reinterpret_cast<Kernel>(static_cast<uintptr_t>(handle));
      static_shared_[k] = host::static_shared_bytes_of_symbol(binary, symbol);
      return k;
    } catch (...) {
      close(fd);
      throw;
    }
  }

  uint64_t alloc(size_t bytes) override {
    const size_t file = host::guarded_file_bytes(bytes);
    const int fd = memfd_with("hkcheck-buffer", file);
    void* mapping = mmap(nullptr, file, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) {
      close(fd);
      throw BackendError(fmt::format("out of host memory allocating {} bytes", bytes), false);
    }
    KernelRequest q;
    q.op = KernelOp::map;
    q.bytes = bytes;
    uint64_t address = 0;
    try {
      address = kernels_.call(q, {}, fd).value;
    } catch (...) {
      close(fd);
      munmap(mapping, file);
      throw;
    }
    close(fd);
    buffers_[address] = SharedBuffer{static_cast<char*>(mapping) + host::guarded_data_offset(bytes), mapping, file,
                                          file - host::guarded_data_offset(bytes), bytes};
    return address;
  }

  AllocationSlack slack(uint64_t ptr) override {
    const auto it = buffers_.find(ptr);
    if (it == buffers_.end()) return {};
    return {host::guarded_slack_before(it->second.bytes), host::guarded_slack_after(it->second.bytes)};
  }

  // Never throws: a case's buffers are freed on every path out of it, a dead kernel process included.
  void free(uint64_t ptr) override {
    const auto it = buffers_.find(ptr);
    if (it == buffers_.end()) return;
    munmap(it->second.mapping, it->second.mapping_bytes);
    buffers_.erase(it);
    KernelRequest q;
    q.op = KernelOp::unmap;
    q.handle = ptr;
    try {
      kernels_.call(q);
    } catch (const std::exception&) {
    }
  }

  void upload(uint64_t dst, const void* src, size_t bytes) override { std::memcpy(here(dst, bytes), src, bytes); }
  // The copy is the worker's own: what the kernel process writes afterwards changes nothing judged.
  void download(void* dst, uint64_t src, size_t bytes) override { std::memcpy(dst, here(src, bytes), bytes); }

  void launch(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block, int64_t shared_bytes,
              void** args) override {
    std::string bytes;
    const KernelRequest q = launch_request(KernelOp::launch, k, grid, block, shared_bytes, args, bytes);
    kernels_.call(q, bytes);
  }

  std::vector<double> time_launches(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
                                    int64_t shared_bytes, void** args, int launches) override {
    std::string bytes;
    KernelRequest q = launch_request(KernelOp::time, k, grid, block, shared_bytes, args, bytes);
    q.launches = launches;
    std::string tail;
    const host::KernelReply r = kernels_.call(q, bytes, -1, &tail);  // the times come first, as many as it counted
    std::vector<double> ms(static_cast<size_t>(std::max(r.times, 0)));
    std::memcpy(ms.data(), tail.data(), ms.size() * sizeof(double));
    return ms;
  }

  void synchronize() override {}  // a launch returns when it has run

 private:
  // Where [address, address + bytes) of a buffer is in this process.
  // Each buffer spans [address - before, address + usable): its slack before it as well.
  char* here(uint64_t address, size_t bytes) {
    auto it = buffers_.upper_bound(address);
    if (it == buffers_.end() || it->first - address > it->second.before()) {
      if (it == buffers_.begin()) throw BackendError(fmt::format("no buffer holds address {:#x}", address), false);
      --it;
    }
    const SharedBuffer& b = it->second;
    const uint64_t offset = address + b.before() - it->first;  // from the mapping's start
    const size_t span = b.before() + b.usable;
    if (offset > span || bytes > span - offset)
      throw BackendError(fmt::format("{} bytes at {:#x} run past their buffer", bytes, address), false);
    return static_cast<char*>(b.mapping) + offset;
  }

  // The arguments travel after the request, each as many bytes as the kernel's parameter takes
  // (its C++ type, as the library listed it at load: a struct as a whole); q.args holds the sizes.
  KernelRequest launch_request(KernelOp op, Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
                               int64_t shared_bytes, void** args, std::string& bytes) const {
    KernelRequest q;
    q.op = op;
    q.handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(k));
    for (int i = 0; i < 3; ++i) q.grid[i] = grid[static_cast<size_t>(i)], q.block[i] = block[static_cast<size_t>(i)];
    q.shared_bytes = shared_bytes;
    const auto params = params_.find(q.handle);
    while (args[q.nargs]) {
      if (q.nargs == host::kMaxKernelArgs) throw BackendError(fmt::format("more than {} kernel arguments", host::kMaxKernelArgs), false);
      const size_t i = static_cast<size_t>(q.nargs);
      const size_t size = params != params_.end() && i < params->second.size() ? params->second[i].bytes : sizeof(uint64_t);
      if (bytes.size() + size > host::kMaxArgumentBytes)
        throw BackendError(fmt::format("the kernel's arguments take more than {} bytes", host::kMaxArgumentBytes), false);
      q.args[i] = size;
      bytes.append(static_cast<const char*>(args[i]), size);
      ++q.nargs;
    }
    return q;
  }

  std::unique_ptr<Backend> local_;
  host::KernelProcess kernels_;
  DeviceInfo info_;
  std::map<uint64_t, SharedBuffer> buffers_;
  std::map<uint64_t, std::vector<KernelParam>> params_;  // by kernel handle
  std::map<Kernel, int64_t> static_shared_;  // each loaded kernel's __shared__ bytes
};

// How many threads this process has (1 when it cannot tell).
int thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  return 1;
}

}  // namespace

std::string isolate_host_kernels(std::unique_ptr<Backend>& local) {
  if (const int threads = thread_count(); threads != 1)
    return fmt::format("kernels run inside the worker: it has {} threads (a GPU library tried before the host backend?) and cannot "
                       "fork safely, so a kernel can reach the worker's memory and descriptors",
                       threads);
  // Neither the kernel process nor any other of this user may trace this one or read its memory
  // and descriptors through /proc: hkcheck's requests and their ids pass through it.
  prctl(PR_SET_DUMPABLE, 0);
  auto isolated = std::make_unique<IsolatedHostBackend>(std::move(local));
  std::string note = isolated->note();
  local = std::move(isolated);
  return note;
}

}  // namespace hk
