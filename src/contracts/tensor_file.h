// The tensor files of a repro folder (docs/results.md): what a kernel was given and left, read
// back by rerun.sh and by a person's own tools.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/dtype.h"

namespace hk {

// A tensor file: magic "HKTENSR1", a u32 little-endian header length, a JSON header
// {"name","dtype","shape"}, then the elements' raw little-endian bytes, row-major.
struct TensorFile {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};
void write_tensor_file(const std::string& path, const TensorFile& t);  // throws std::runtime_error
TensorFile read_tensor_file(const std::string& path);                   // throws std::runtime_error

// Larger tensors are left out of a repro (the rerun builds them again from the seed) so that a
// failing run over big shapes does not fill the disk.
constexpr size_t kMaxReproTensorBytes = size_t{256} << 20;

}  // namespace hk
