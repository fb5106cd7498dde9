// Element types hkcheck knows, with exact host conversions (round-to-nearest-even) that match
// the device prelude's, the units used to judge errors (ulp), and the poison patterns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hk {

// fp4e2m1 is stored packed, two elements per byte (element 2i in the low nibble, 2i+1 in the
// high nibble, as in the OCP MX spec); e8m0 is the OCP MX scale (2^(bits - 127), 0xFF NaN).
enum class DType { f32, f64, f16, bf16, fp8e4m3, fp8e5m2, i8, u8, i32, i64, u32, u64, fp4e2m1, e8m0, i16, u16 };

std::optional<DType> parse_dtype(const std::string& name);
const char* dtype_name(DType t);
std::string dtype_list();  // "f32 f16 ..." for error messages
// Bytes of one storage unit: for a packed type (fp4e2m1) one byte holding two elements.
size_t dtype_size(DType t);
bool is_float(DType t);
bool is_packed(DType t);  // more than one element per byte
// Bytes that numel elements occupy on the device: ceil(numel / 2) for fp4e2m1.
size_t storage_bytes(DType t, int64_t numel);

// Rounds v to the nearest value of t (RNE; integers round then clamp to the type's range).
double round_to_dtype(DType t, double v);
// Encodes v (already representable or not) into t's little-endian bytes at dst. For fp4e2m1
// one element: its 4-bit code in the low nibble of the byte at dst, the high nibble zero.
void encode(DType t, double v, void* dst);
double decode(DType t, const void* src);  // fp4e2m1: the code in the low nibble

// Element i of a tensor's device bytes (handles the nibbles of packed types).
double decode_element(DType t, const uint8_t* data, int64_t i);
void encode_element(DType t, double v, uint8_t* data, int64_t i);

// The spacing of t's values at |v|: for floats 2^(exponent(v) - mantissa bits), never below the
// smallest subnormal; for integers 1; for e8m0 (powers of two only) 2^floor(log2 |v|), the
// distance to the next larger scale.
double ulp_at(DType t, double v);

// ulp_at(t, v) for many values of one dtype, as comparisons need it for every element: the
// dtype's limits read once, v's exponent read from its bits. The same power of two.
class UlpOf {
 public:
  explicit UlpOf(DType t);
  double operator()(double v) const;

 private:
  DType t_;
  bool float_;
  int mbits_ = 0, emin_ = 0, emax_ = 0;
};

// A pattern written into outputs before a launch, chosen so a value the kernel never wrote can
// be told apart (a NaN with a payload for floats, an unlikely value for integers).
// Both work on one storage unit (dtype_size bytes). fp4e2m1 has no NaN: its poison is the byte
// 0xF7 (the pair +6, -6), so a pair of elements is poisoned and recognised together.
void write_poison(DType t, void* dst);
bool is_poison(DType t, const void* src);
// A device buffer of numel elements, every storage unit poisoned.
std::vector<uint8_t> poisoned_buffer(DType t, int64_t numel);
// Whether element i of a tensor's device bytes still holds the poison (of its whole unit).
bool is_poison_element(DType t, const uint8_t* data, int64_t i);

// Elements [first, first + n) of a tensor's device bytes, with one dtype dispatch for the whole
// run: what the big loops (packing, unpacking, generating straight into bytes) use. Bit for bit
// encode_element / decode_element. For a packed dtype an odd `first` or end touches only its nibble.
void encode_elements(DType t, const double* values, int64_t n, uint8_t* data, int64_t first);
void decode_elements(DType t, const uint8_t* data, int64_t first, int64_t n, double* out);

// Host-side tensor data in the device's byte layout. unpack of a packed type yields every
// nibble (an even count); callers that know numel drop the padding nibble.
std::vector<uint8_t> pack(DType t, const std::vector<double>& values);
std::vector<double> unpack(DType t, const std::vector<uint8_t>& bytes);

}  // namespace hk
