// The bytes a kernel receives for one argument: a tensor's device address, a scalar in its
// dtype, or a struct laid out as the C++ ABI of every target hkcheck compiles for lays it out
// (x86-64, NVPTX64 and AMDGCN agree: a field at the next multiple of its alignment, a struct
// aligned to its strictest field or its declared alignment and padded to a multiple of it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/case_plan.h"

namespace hk {

struct ArgLayout {
  size_t bytes = 0, align = 1;
};

ArgLayout layout_of(const ArgPlan& a);

// The argument's bytes; tensors as the addresses in ptrs (by tensor index), padding zero.
std::vector<uint8_t> argument_bytes(const ArgPlan& a, const std::vector<uint64_t>& ptrs);

// "struct of 136 bytes, aligned to 8: x @0 (tensor 'x', 8 bytes), rows @8 (i32), ..." for messages
// that say why an argument does not fit its parameter. Nested structs list their own fields.
std::string describe_layout(const ArgPlan& a, const CasePlan& plan);

// An argument's bytes where the kernel may read them with the alignment its type asks for (up
// to kMaxArgumentAlign): the host backend dereferences a pointer to its parameter's C++ type.
class AlignedArgument {
 public:
  explicit AlignedArgument(const std::vector<uint8_t>& bytes);
  void* data() { return storage_.data() + offset_; }
  size_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  size_t offset_ = 0, size_ = 0;
};

}  // namespace hk
