// A Backend that passes every call on to another one (the host backend, say): a test derives
// from it and overrides only the calls it watches or spoils, calling ForwardingBackend's for the
// real work.
#pragma once

#include <memory>
#include <utility>

#include "platform/backend.h"

namespace hk::test {

class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(std::unique_ptr<Backend> be) : be_(std::move(be)) {}
  const DeviceInfo& device() const override { return be_->device(); }
  CompileOutput compile(const CompileRequest& q) override { return be_->compile(q); }
  Kernel load(const std::string& binary, const std::string& symbol) override { return be_->load(binary, symbol); }
  KernelAttributes attributes(Kernel k) override { return be_->attributes(k); }
  std::optional<std::vector<KernelParam>> parameters(Kernel k, size_t passed) override { return be_->parameters(k, passed); }
  void allow_dynamic_shared(Kernel k, int64_t bytes) override { be_->allow_dynamic_shared(k, bytes); }
  uint64_t alloc(size_t bytes) override { return be_->alloc(bytes); }
  void free(uint64_t ptr) override { be_->free(ptr); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { be_->upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { be_->download(dst, src, bytes); }
  AllocationSlack slack(uint64_t ptr) override { return be_->slack(ptr); }
  void launch(Kernel k, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block, int64_t shared, void** args) override {
    be_->launch(k, grid, block, shared, args);
  }
  void synchronize() override { be_->synchronize(); }

 private:
  std::unique_ptr<Backend> be_;
};

}  // namespace hk::test
