#include "refs/generator.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <optional>
#include <stdexcept>

#include "model/dtype.h"
#include "util/first_touch.h"
#include "model/manifest.h"
#include "util/parallel_for.h"
#include "refs/portable_normal.h"
#include "prelude/hk_input_values.h"

namespace hk {
namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  uint64_t state_;
};

// Draw k of the stream (hk_input_values.h): each chunk of a tensor can be generated on its own
// thread, and the values are exactly those of drawing in sequence.
double uniform01_at(uint64_t seed, uint64_t k) { return hk_uniform01_at(seed, k); }

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return (h ^ 0xFF) * 0x100000001B3ull;  // separator, so ("ab","c") != ("a","bc")
}

double field(const GeneratorPlan& g, const char* name, double fallback) {
  const auto it = g.fields.find(name);
  return it == g.fields.end() ? fallback : it->second;
}

}  // namespace

uint64_t tensor_seed(uint64_t run_seed, const std::string& kernel, const std::string& case_name, const std::string& tensor) {
  uint64_t h = 0xCBF29CE484222325ull ^ run_seed;
  h = fnv1a(h, kernel);
  h = fnv1a(h, case_name);
  return fnv1a(h, tensor);
}

namespace {


// The values [begin, end) of an element-wise kind, unrounded, into out[0, end - begin): each a
// function of its index alone. begin is even, so Box-Muller pairs stay whole.
void fill_range(const ElementwiseGenerator& g, uint64_t seed, int64_t begin, int64_t end, double* out) {
  double* v = out - begin;  // v[i] is element i
  switch (g.kind) {
    case ElementwiseKind::normal: {
      constexpr int64_t kBatch = 256;  // pairs transformed together (portable_normal.h)
      double u1[kBatch], u2[kBatch], a[kBatch], b[kBatch];
      for (int64_t at = begin; at < end; at += 2 * kBatch) {
        const int64_t pairs = std::min(kBatch, (end - at + 1) / 2);
        for (int64_t k = 0; k < pairs; ++k) {  // pair k takes draws i and i + 1
          const uint64_t i = static_cast<uint64_t>(at + 2 * k);
          u1[k] = uniform01_at(seed, i), u2[k] = uniform01_at(seed, i + 1);
        }
        normal_pairs(u1, u2, a, b, static_cast<size_t>(pairs));
        for (int64_t k = 0; k < pairs; ++k) {
          const int64_t i = at + 2 * k;
          v[i] = g.a + g.b * a[k];
          if (i + 1 < end) v[i + 1] = g.a + g.b * b[k];
        }
      }
      return;
    }
    case ElementwiseKind::uniform:
      for (int64_t i = begin; i < end; ++i) v[i] = g.a + (g.b - g.a) * uniform01_at(seed, static_cast<uint64_t>(i));
      return;
    case ElementwiseKind::integer: {
      const double lo = std::ceil(g.a), hi = std::floor(g.b), span = hi - lo + 1;
      for (int64_t i = begin; i < end; ++i) v[i] = lo + std::min(std::floor(uniform01_at(seed, static_cast<uint64_t>(i)) * span), span - 1);
      return;
    }
    case ElementwiseKind::arange:
      for (int64_t i = begin; i < end; ++i) {
        double x = g.a + static_cast<double>(i) * g.b;
        if (g.has_mod && g.c != 0) x = std::fmod(x, g.c);
        v[i] = x;
      }
      return;
    case ElementwiseKind::constant: std::fill(out, out + (end - begin), g.a); return;
  }
}

// Values that need the whole tensor at once (a shuffle, a list), unrounded.
void fill_whole(const GeneratorPlan& g, int64_t n, uint64_t seed, double* v) {
  if (g.kind == "permutation") {
    SplitMix64 rng(seed);
    const double start = field(g, "start", 0), step = field(g, "step", 1);
    for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i) * step;
    for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
      const int64_t j = static_cast<int64_t>(rng.next() % static_cast<uint64_t>(i + 1));
      std::swap(v[i], v[j]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const auto it = g.fields.find(values_field(static_cast<size_t>(i)));
      if (it == g.fields.end()) throw std::runtime_error(fmt::format("generator values: no value for element {}", i));
      v[i] = it->second;
    }
  }
}

// Element-wise kinds run chunk by chunk on parallel_threads(), in batches small enough to stay
// in cache; fn(batch values, count, first element) takes each batch of elements [first, first + n),
// unrounded. first is even.
constexpr int64_t kBatch = 2048;  // even
void for_each_batch(const ElementwiseGenerator& g, int64_t first, int64_t n, uint64_t seed,
                    const std::function<void(double*, int64_t, int64_t)>& fn) {
  parallel_chunks(n, kElementChunk, [&](int64_t, int64_t begin, int64_t end) {
    double batch[kBatch];
    for (int64_t at = first + begin; at < first + end; at += kBatch) {
      const int64_t stop = std::min(first + end, at + kBatch);
      fill_range(g, seed, at, stop, batch);
      fn(batch, stop - at, at);
    }
  });
}

}  // namespace

std::optional<ElementwiseGenerator> elementwise_generator(const GeneratorPlan& g) {
  if (g.kind == "normal") return ElementwiseGenerator{ElementwiseKind::normal, field(g, "mean", 0), field(g, "std", 1)};
  if (g.kind == "uniform") return ElementwiseGenerator{ElementwiseKind::uniform, field(g, "low", 0), field(g, "high", 1)};
  if (g.kind == "int") {
    if (std::floor(field(g, "high", 0)) < std::ceil(field(g, "low", 0))) throw std::runtime_error("generator int: high < low");
    return ElementwiseGenerator{ElementwiseKind::integer, field(g, "low", 0), field(g, "high", 0)};
  }
  if (g.kind == "arange")
    return ElementwiseGenerator{ElementwiseKind::arange, field(g, "start", 0), field(g, "step", 1), field(g, "mod", 0), g.fields.count("mod") != 0};
  if (g.kind == "constant") return ElementwiseGenerator{ElementwiseKind::constant, field(g, "value", 0)};
  if (g.kind == "permutation" || g.kind == "values") return std::nullopt;
  throw std::runtime_error("unknown generator kind '" + g.kind + "'");
}

void generate_into(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed, double* v) {
  // Rounding is decode(encode(x)) of the dtype, as round_to_dtype, done a batch at a time.
  auto round_in_place = [dtype](double* values, int64_t count) {
    if (dtype == DType::f64) return;
    uint8_t bytes[kBatch * 8];
    for (int64_t at = 0; at < count; at += kBatch) {
      const int64_t len = std::min(kBatch, count - at);
      encode_elements(dtype, values + at, len, bytes, 0);
      decode_elements(dtype, bytes, 0, len, values + at);
    }
  };
  const std::optional<ElementwiseGenerator> e = elementwise_generator(g);
  if (!e) {
    fill_whole(g, n, seed, v);
    round_in_place(v, n);
    return;
  }
  for_each_batch(*e, 0, n, seed, [&](double* batch, int64_t count, int64_t first) {
    round_in_place(batch, count);
    std::copy(batch, batch + count, v + first);
  });
}

std::vector<uint8_t> generate_packed(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed) {
  const std::optional<ElementwiseGenerator> e = elementwise_generator(g);
  if (!e) {
    std::vector<double> v(static_cast<size_t>(n));
    fill_whole(g, n, seed, v.data());
    return pack(dtype, v);
  }
  return generate_packed_range(*e, dtype, 0, n, seed);
}

std::vector<uint8_t> generate_packed_range(const ElementwiseGenerator& g, DType dtype, int64_t first, int64_t n, uint64_t seed) {
  if (first % 2 != 0) throw std::logic_error("generate_packed_range: an odd first element splits a pair");
  std::vector<uint8_t> bytes = touched_vector<uint8_t>(storage_bytes(dtype, n));  // an fp4 padding nibble stays 0
  for_each_batch(g, first, n, seed, [&](double* batch, int64_t count, int64_t at) { encode_elements(dtype, batch, count, bytes.data(), at - first); });
  return bytes;
}

std::vector<double> generate(const GeneratorPlan& g, int64_t n, uint64_t seed) {
  std::vector<double> v = touched_vector<double>(static_cast<size_t>(n));
  generate_into(g, DType::f64, n, seed, v.data());
  return v;
}

}  // namespace hk
