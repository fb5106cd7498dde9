#include "generator.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <stdexcept>

#include "dtype.h"
#include "first_touch.h"
#include "manifest.h"
#include "parallel_for.h"
#include "portable_normal.h"

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

// Draw k (from 0) of the splitmix64 stream of seed, without the draws before it: the state after
// k draws is seed + k * 0x9E37..., so each chunk of a tensor can be generated on its own thread
// and the values are exactly those of drawing in sequence.
double uniform01_at(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

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

bool element_wise(const GeneratorPlan& g) { return g.kind != "permutation" && g.kind != "values"; }

// The values [begin, end) of an element-wise kind, unrounded, into out[0, end - begin): each a
// function of its index alone. begin is even, so Box-Muller pairs stay whole.
void fill_range(const GeneratorPlan& g, uint64_t seed, int64_t begin, int64_t end, double* out) {
  double* v = out - begin;  // v[i] is element i
  if (g.kind == "normal") {
    const double mean = field(g, "mean", 0), std = field(g, "std", 1);
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
        v[i] = mean + std * a[k];
        if (i + 1 < end) v[i + 1] = mean + std * b[k];
      }
    }
  } else if (g.kind == "uniform") {
    const double lo = field(g, "low", 0), hi = field(g, "high", 1);
    for (int64_t i = begin; i < end; ++i) v[i] = lo + (hi - lo) * uniform01_at(seed, static_cast<uint64_t>(i));
  } else if (g.kind == "int") {
    const double lo = std::ceil(field(g, "low", 0)), hi = std::floor(field(g, "high", 0));
    if (hi < lo) throw std::runtime_error("generator int: high < low");
    const double span = hi - lo + 1;
    for (int64_t i = begin; i < end; ++i)
      v[i] = lo + std::min(std::floor(uniform01_at(seed, static_cast<uint64_t>(i)) * span), span - 1);
  } else if (g.kind == "arange") {
    const double start = field(g, "start", 0), step = field(g, "step", 1);
    const bool has_mod = g.fields.count("mod") != 0;
    const double mod = field(g, "mod", 0);
    for (int64_t i = begin; i < end; ++i) {
      double x = start + static_cast<double>(i) * step;
      if (has_mod && mod != 0) x = std::fmod(x, mod);
      v[i] = x;
    }
  } else if (g.kind == "constant") {
    std::fill(out, out + (end - begin), field(g, "value", 0));
  } else {
    throw std::runtime_error("unknown generator kind '" + g.kind + "'");
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
// in cache; fn(batch values, count, first element) takes each batch, unrounded.
constexpr int64_t kBatch = 2048;  // even
void for_each_batch(const GeneratorPlan& g, int64_t n, uint64_t seed, const std::function<void(double*, int64_t, int64_t)>& fn) {
  parallel_chunks(n, kElementChunk, [&](int64_t, int64_t begin, int64_t end) {
    double batch[kBatch];
    for (int64_t at = begin; at < end; at += kBatch) {
      const int64_t stop = std::min(end, at + kBatch);
      fill_range(g, seed, at, stop, batch);
      fn(batch, stop - at, at);
    }
  });
}

}  // namespace

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
  if (!element_wise(g)) {
    fill_whole(g, n, seed, v);
    round_in_place(v, n);
    return;
  }
  for_each_batch(g, n, seed, [&](double* batch, int64_t count, int64_t first) {
    round_in_place(batch, count);
    std::copy(batch, batch + count, v + first);
  });
}

std::vector<uint8_t> generate_packed(const GeneratorPlan& g, DType dtype, int64_t n, uint64_t seed) {
  if (!element_wise(g)) {
    std::vector<double> v(static_cast<size_t>(n));
    fill_whole(g, n, seed, v.data());
    return pack(dtype, v);
  }
  std::vector<uint8_t> bytes = touched_vector<uint8_t>(storage_bytes(dtype, n));  // an fp4 padding nibble stays 0
  for_each_batch(g, n, seed, [&](double* batch, int64_t count, int64_t first) { encode_elements(dtype, batch, count, bytes.data(), first); });
  return bytes;
}

std::vector<double> generate(const GeneratorPlan& g, int64_t n, uint64_t seed) {
  std::vector<double> v = touched_vector<double>(static_cast<size_t>(n));
  generate_into(g, DType::f64, n, seed, v.data());
  return v;
}

}  // namespace hk
