// Guard regions: every device buffer of a case is allocated with kGuardBytes before and after
// it, filled with a byte pattern; after each launch the guards are read back, and any byte that
// changed shows a write outside the tensor (an off-by-one, a wrong stride) that would otherwise
// land in unused memory and go unseen. Where the backend leaves more writable bytes around a
// buffer (the host backend's page slack), the guards cover all of them.
// Around a tensor of a floating type each element's slot of the pattern is a NaN of that type, so
// a read outside it (x[n] * 0 at the last sample) makes a NaN the comparison sees, on a GPU as on
// the host, instead of finite bytes that vanish (outside_reads.h then names the tensor and side).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/dtype.h"
#include "contracts/result.h"

namespace hk {

// A multiple of 256, so the tensor inside the allocation keeps the allocation's alignment.
constexpr size_t kGuardBytes = 256;
// The pattern's base byte: not a plausible float, half or small integer, and not the output poison.
constexpr uint8_t kGuardByte = 0xA7;

// The bytes the guard region of the tensor-th buffer on side ("before" or "after") holds before a
// launch, `bytes` of them. Each tensor's and side's pattern differs from every other's at every
// offset: a kernel copying one element past the end of x into one past the end of out moves guard
// bytes onto guard bytes, which a single pattern for all would hide.
std::vector<uint8_t> guard_pattern(size_t tensor, const std::string& side, size_t bytes = kGuardBytes);
// The same pattern with every whole element slot of dtype t a quiet NaN of t (its payload and
// sign from the pattern's bits), the slots counted from the tensor's edge: from the end of the
// region before it, from the start of the one after. Unchanged for types without NaN (integers, fp4).
std::vector<uint8_t> guard_pattern(size_t tensor, const std::string& side, size_t bytes, DType t);

// Compares a guard region read back after the launch with the pattern it was filled with. side:
// "before" reports offsets from the buffer's start (-region.size() .. -1), "after" from its end
// (0 .. region.size()-1). An untouched region costs one memcmp.
std::optional<GuardViolation> check_guard(const std::string& tensor, const std::string& side, const std::vector<uint8_t>& region,
                                          const std::vector<uint8_t>& pattern);

// Where one buffer's guards lie on the device and what they hold. The allocation has kGuardBytes
// on each side of the tensor; the backend may add slack it cannot give to another buffer (the
// host backend's rest of a page: Backend::slack), which a kernel can write without a fault, so
// the guards reach over it too.
struct BufferGuards {
  uint64_t before_at = 0, after_at = 0;  // device addresses of the two regions
  std::vector<uint8_t> before, after;    // their patterns
};
// allocation: the address alloc() gave for allocation_bytes(tensor_bytes, offset). The tensor
// starts offset bytes after kGuardBytes (a misaligned tensor, TensorPlan::offset_bytes): the
// leading guard grows by the offset, so it still ends at the tensor's first byte.
BufferGuards buffer_guards(size_t tensor, uint64_t allocation, size_t tensor_bytes, size_t slack_before, size_t slack_after,
                           size_t offset = 0, std::optional<DType> nan_of = std::nullopt);
// What one tensor's allocation holds: the leading guard, the offset, the tensor, the trailing guard.
inline size_t allocation_bytes(size_t tensor_bytes, size_t offset) { return kGuardBytes + offset + tensor_bytes + kGuardBytes; }
// Where the tensor starts in its allocation.
inline size_t data_offset(size_t offset) { return kGuardBytes + offset; }

// "out: 4 bytes written after the end (offsets +0..+3)", for notes.
std::string describe(const GuardViolation& g);

}  // namespace hk
