// Element types hkcheck knows, with exact host conversions (round-to-nearest-even) that match
// the device prelude's, the units used to judge errors (ulp), and the poison patterns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hk {

enum class DType { f32, f64, f16, bf16, fp8e4m3, fp8e5m2, i8, u8, i32, i64, u32, u64 };

std::optional<DType> parse_dtype(const std::string& name);
const char* dtype_name(DType t);
std::string dtype_list();  // "f32 f16 ..." for error messages
size_t dtype_size(DType t);
bool is_float(DType t);

// Rounds v to the nearest value of t (RNE; integers round then clamp to the type's range).
double round_to_dtype(DType t, double v);
// Encodes v (already representable or not) into t's little-endian bytes at dst.
void encode(DType t, double v, void* dst);
double decode(DType t, const void* src);

// The spacing of t's values at |v|: for floats 2^(exponent(v) - mantissa bits), never below the
// smallest subnormal; for integers 1.
double ulp_at(DType t, double v);

// A pattern written into outputs before a launch, chosen so a value the kernel never wrote can
// be told apart (a NaN with a payload for floats, an unlikely value for integers).
void write_poison(DType t, void* dst);
bool is_poison(DType t, const void* src);

// Host-side tensor data in the device's byte layout.
std::vector<uint8_t> pack(DType t, const std::vector<double>& values);
std::vector<double> unpack(DType t, const std::vector<uint8_t>& bytes);

}  // namespace hk
