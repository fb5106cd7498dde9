// A host backend of either profile (warp 32 or 64) to compile, launch and read back kernels on:
// the fixture of the CUDA and HIP subset tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "platform/backend.h"

namespace hk {

struct HostSubset : ::testing::TestWithParam<const char*> {
  std::unique_ptr<Backend> be;
  void SetUp() override { be = open_backend("host", 0, HostOptions{GetParam(), 2}); }
  Backend::Kernel kernel(const std::string& source, const std::string& entry) {
    const CompileOutput c = be->compile({source, "subset.cu", {}, {entry}});
    EXPECT_TRUE(c.ok) << c.log;
    return c.ok ? be->load(c.binary, c.symbols.at(entry)) : nullptr;
  }
  template <typename T> uint64_t upload(const std::vector<T>& v) {
    const uint64_t d = be->alloc(v.size() * sizeof(T));
    be->upload(d, v.data(), v.size() * sizeof(T));
    return d;
  }
  template <typename T> std::vector<T> download(uint64_t d, size_t n) {
    std::vector<T> v(n);
    be->download(v.data(), d, n * sizeof(T));
    return v;
  }
};

}  // namespace hk
