// A simulated backend for tests of the worker's case executor: its "kernels" are C++ functions
// over host memory, registered by entry name, and every buffer lives on the host.
#pragma once

#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <map>

#include "platform/backend.h"

namespace hk::test {

// A simulated kernel: out, x and n as the manifest below passes them; launch counts from 1.
using SimKernel = std::function<void(float* out, const float* x, int n, int launch)>;

class SimBackend : public Backend {
 public:
  SimBackend() {
    dev_.backend = "sim";
    dev_.name = "Simulated device";
    dev_.arch = "sim_1";
    dev_.max_threads_per_block = 1024;
    dev_.max_block = {1024, 1024, 64};
    dev_.max_grid = {1 << 30, 65535, 65535};
    dev_.shared_per_block = 48 << 10;
    dev_.shared_per_block_optin = 48 << 10;
    dev_.total_memory = int64_t{1} << 30;
  }
  ~SimBackend() override { EXPECT_EQ(live_, 0) << "every buffer is freed"; }
  DeviceInfo dev_;
  std::map<std::string, SimKernel> kernels;
  size_t refuse_alloc_over = SIZE_MAX;  // an allocation larger than this fails like an out-of-memory
  AllocationSlack slack_bytes;          // writable bytes around every allocation, as the host backend has
  std::optional<std::vector<KernelParam>> params;  // what parameters() tells; nullopt: nothing

  const DeviceInfo& device() const override { return dev_; }
  CompileOutput compile(const CompileRequest&) override { return {true, "sim", "", {}}; }
  Kernel load(const std::string&, const std::string& entry) override {
    const auto it = kernels.find(entry);
    if (it == kernels.end()) throw MissingEntry("no kernel named " + entry);
    launches_[&it->second] = 0;
    return &it->second;
  }
  KernelAttributes attributes(Kernel) override { return {1024, 0, 16}; }
  void allow_dynamic_shared(Kernel, int64_t) override {}
  uint64_t alloc(size_t bytes) override {
    if (bytes > refuse_alloc_over) throw BackendError("simulated out of memory", false);
    ++live_;
    uint8_t* block = new uint8_t[slack_bytes.before + bytes + slack_bytes.after];
    return reinterpret_cast<uint64_t>(block + slack_bytes.before);
  }
  void free(uint64_t p) override {
    --live_;
    delete[] (reinterpret_cast<uint8_t*>(p) - slack_bytes.before);
  }
  AllocationSlack slack(uint64_t) override { return slack_bytes; }
  std::optional<std::vector<KernelParam>> parameters(Kernel, size_t) override { return params; }
  void upload(uint64_t dst, const void* src, size_t bytes) override { std::memcpy(reinterpret_cast<void*>(dst), src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { std::memcpy(dst, reinterpret_cast<const void*>(src), bytes); }
  void launch(Kernel k, const std::array<int64_t, 3>&, const std::array<int64_t, 3>&, int64_t, void** args) override {
    auto* fn = static_cast<SimKernel*>(k);
    (*fn)(*static_cast<float**>(args[0]), *static_cast<const float**>(args[1]), *static_cast<int*>(args[2]), ++launches_[fn]);
  }
  void synchronize() override {}

 private:
  int live_ = 0;
  std::map<SimKernel*, int> launches_;
};

}  // namespace hk::test
