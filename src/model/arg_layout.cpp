#include "model/arg_layout.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

#include "model/dtype.h"

namespace hk {
namespace {

size_t round_up(size_t n, size_t align) { return (n + align - 1) / align * align; }

// Where each field of a record starts, and the record's own size and alignment: the one walk
// layout_of, write and describe_layout share.
struct RecordLayout {
  std::vector<size_t> offsets;
  ArgLayout whole;
};

RecordLayout record_layout(const ArgPlan& a) {
  RecordLayout r;
  size_t at = 0, align = a.align > 0 ? static_cast<size_t>(a.align) : 1;
  for (const ArgPlan& f : a.fields) {
    const ArgLayout l = layout_of(f);
    at = round_up(at, l.align);
    r.offsets.push_back(at);
    at += l.bytes;
    align = std::max(align, l.align);
  }
  r.whole = {at == 0 ? align : round_up(at, align), align};  // a struct without fields still takes a byte (or its alignment)
  return r;
}

// 32- and 64-bit numbers are written from the double exactly as before (u64 above 2^53 as its
// nearest double); the narrower ones through the dtype's own encoding.
void write_scalar(const ArgPlan& a, uint8_t* dst) {
  const double v = a.value;
  switch (a.dtype) {
    case DType::f32: { const float x = static_cast<float>(v); std::memcpy(dst, &x, 4); return; }
    case DType::f64: std::memcpy(dst, &v, 8); return;
    case DType::i32: { const int32_t x = static_cast<int32_t>(std::llround(v)); std::memcpy(dst, &x, 4); return; }
    case DType::u32: { const uint32_t x = static_cast<uint32_t>(std::llround(v)); std::memcpy(dst, &x, 4); return; }
    case DType::i64: { const int64_t x = static_cast<int64_t>(std::llround(v)); std::memcpy(dst, &x, 8); return; }
    case DType::u64: {
      const uint64_t x = v >= 9223372036854775808.0 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(std::llround(v));
      std::memcpy(dst, &x, 8);
      return;
    }
    default: encode(a.dtype, v, dst); return;
  }
}

void write(const ArgPlan& a, const std::vector<uint64_t>& ptrs, uint8_t* dst) {
  switch (a.kind) {
    case ArgKind::tensor: std::memcpy(dst, &ptrs.at(static_cast<size_t>(a.tensor)), sizeof(uint64_t)); return;
    case ArgKind::scalar: write_scalar(a, dst); return;
    case ArgKind::zeros: return;  // the buffer starts zeroed
    case ArgKind::record: {
      const RecordLayout r = record_layout(a);
      for (size_t i = 0; i < a.fields.size(); ++i) write(a.fields[i], ptrs, dst + r.offsets[i]);
      return;
    }
    case ArgKind::array: break;
  }
  throw std::logic_error("an array argument is planned as a record");
}

std::string what_it_is(const ArgPlan& a, const CasePlan& plan) {
  switch (a.kind) {
    case ArgKind::tensor: return fmt::format("tensor '{}', a device pointer", plan.tensors.at(static_cast<size_t>(a.tensor)).name);
    case ArgKind::scalar: return a.boolean ? "bool" : dtype_name(a.dtype);
    case ArgKind::zeros: return fmt::format("{} zero bytes", a.bytes);
    case ArgKind::record: return describe_layout(a, plan);
    case ArgKind::array: break;
  }
  return "?";
}

}  // namespace

ArgLayout layout_of(const ArgPlan& a) {
  switch (a.kind) {
    case ArgKind::tensor: return {8, 8};
    case ArgKind::scalar: return {dtype_size(a.dtype), dtype_size(a.dtype)};
    case ArgKind::zeros: return {static_cast<size_t>(a.bytes), 1};
    case ArgKind::record: return record_layout(a).whole;
    case ArgKind::array: break;
  }
  throw std::logic_error("an array argument is planned as a record");
}

std::vector<uint8_t> argument_bytes(const ArgPlan& a, const std::vector<uint64_t>& ptrs) {
  std::vector<uint8_t> bytes(layout_of(a).bytes, 0);
  write(a, ptrs, bytes.data());
  return bytes;
}

std::string describe_layout(const ArgPlan& a, const CasePlan& plan) {
  if (a.kind != ArgKind::record) return what_it_is(a, plan);
  const RecordLayout r = record_layout(a);
  std::string fields;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const ArgPlan& f = a.fields[i];
    fields += fmt::format("{}{} @{} ({})", fields.empty() ? "" : ", ", f.name.empty() ? fmt::format("#{}", i) : f.name, r.offsets[i], what_it_is(f, plan));
  }
  return fmt::format("struct of {} bytes, aligned to {}: {}", r.whole.bytes, r.whole.align, fields.empty() ? "no fields" : fields);
}

AlignedArgument::AlignedArgument(const std::vector<uint8_t>& bytes) : storage_(bytes.size() + kMaxArgumentAlign), size_(bytes.size()) {
  const auto at = reinterpret_cast<uintptr_t>(storage_.data());
  offset_ = static_cast<size_t>((kMaxArgumentAlign - at % kMaxArgumentAlign) % kMaxArgumentAlign);
  if (!bytes.empty()) std::memcpy(storage_.data() + offset_, bytes.data(), bytes.size());
}

}  // namespace hk
