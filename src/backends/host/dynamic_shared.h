// A block's dynamic shared memory on the host backend, with a guard pattern after its last byte:
// an index past the size the launch gave (`s_acc[D]` of D floats) lands in the guard, which is
// checked after every block, instead of in memory nothing looks at. On a GPU such a write
// corrupts another block's data or faults; here it ends the launch with the block and the offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hk::host {

// What a block's shared memory, static and dynamic, holds when it starts on the host backend: a
// NaN in every floating type (f64, f32, f16, bf16, both fp8) and -1 in every integer, so that a
// read of a slot no thread wrote changes the output. A GPU gives no such promise, and a fresh
// host thread or GPU context would give zeros, which hide the read.
constexpr unsigned char kSharedPoison = 0xFF;

class DynamicShared {
 public:
  static constexpr size_t kGuardBytes = 256;
  explicit DynamicShared(size_t bytes);
  void* data() { return data_; }
  // Fills the guard, and the memory itself with kSharedPoison; call before each block.
  void arm();
  // "" when the guard is intact, else what was written past the end, for the launch's error.
  std::string check(const std::string& block) const;

 private:
  size_t bytes_;
  std::vector<unsigned char> memory_;
  unsigned char* data_;  // 16-byte aligned, as a GPU's shared memory is
};

}  // namespace hk::host
