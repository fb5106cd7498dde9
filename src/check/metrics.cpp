#include "check/metrics.h"

#include <algorithm>
#include <cmath>

#include "check/mismatch_view.h"
#include "util/parallel_for.h"

namespace hk {

namespace {

// What one chunk of elements contributes; chunks are merged in index order, so "first" and
// "worst" (the first of the largest) mean what they mean for a single pass.
struct ChunkStats {
  double diff_sq = 0, ref_sq = 0;
  int64_t worst_flat = -1;
  double worst_d = 0, worst_g = 0, worst_r = 0, worst_ulps = 0;
  double max_rel = 0;
  bool any_above_floor = false;
  double max_ulps_above = 0;  // over elements whose difference passes atol
  int64_t unwritten = 0, nonfinite = 0, mismatches = 0, beyond_hard_ulps = 0;
  int64_t first_flat = -1;
  double first_g = 0, first_r = 0;

  void merge(const ChunkStats& o) {
    diff_sq += o.diff_sq, ref_sq += o.ref_sq;
    if (o.worst_flat >= 0 && (worst_flat < 0 || o.worst_d > worst_d))
      worst_flat = o.worst_flat, worst_d = o.worst_d, worst_g = o.worst_g, worst_r = o.worst_r, worst_ulps = o.worst_ulps;
    max_rel = std::max(max_rel, o.max_rel);
    if (o.any_above_floor) max_ulps_above = any_above_floor ? std::max(max_ulps_above, o.max_ulps_above) : o.max_ulps_above;
    any_above_floor |= o.any_above_floor;
    unwritten += o.unwritten, nonfinite += o.nonfinite, mismatches += o.mismatches, beyond_hard_ulps += o.beyond_hard_ulps;
    if (first_flat < 0 && o.first_flat >= 0) first_flat = o.first_flat, first_g = o.first_g, first_r = o.first_r;
  }
};

void compare_chunk(const TensorPlan& t, const std::vector<uint8_t>& got, const std::vector<double>& ref, int64_t begin, int64_t end,
                   std::vector<bool>& bad, ChunkStats& c) {
  const Tolerance& tol = t.tolerance;
  const UlpOf ulp_of(t.dtype);
  // Where the dtype's poison reads as a NaN (every float dtype but fp4), an element that does not
  // read as a NaN cannot be poison: the bytes are looked at again only for NaNs.
  uint8_t poison[8] = {};
  write_poison(t.dtype, poison);
  const bool poison_is_nan = std::isnan(decode(t.dtype, poison));
  constexpr int64_t kBatch = 1024;
  double decoded[kBatch];
  for (int64_t at = begin; at < end; at += kBatch) {
    const int64_t stop = std::min(end, at + kBatch);
    decode_elements(t.dtype, got.data(), at, stop - at, decoded);
    for (int64_t i = at; i < stop; ++i) {
      const double r = ref[static_cast<size_t>(i)];
      const double g = decoded[i - at];
      if (g == r) {  // exact (a copy, a mask): the general path below adds only r * r and maybe a worst of 0
        if (std::isfinite(r)) {
          c.ref_sq += r * r;
          if (c.worst_flat < 0) c.worst_flat = i, c.worst_d = 0, c.worst_g = g, c.worst_r = r, c.worst_ulps = 0;
        }
        continue;  // an equal infinity (a masked score) is right and counts in no sum
      }
      bool ok;
      // A poison pattern equal to the reference is a right value either way (fp4 has no NaN to
      // poison with, so its poison is an ordinary pair of values).
      if ((!poison_is_nan || std::isnan(g)) && is_poison_element(t.dtype, got.data(), i) && !(std::isnan(r) && is_float(t.dtype))) {
        ++c.unwritten;
        ok = false;
      } else if (!std::isfinite(r)) {
        ok = (std::isnan(r) && std::isnan(g)) || g == r;  // the same NaN-ness or the same Inf
      } else if (!std::isfinite(g)) {
        ++c.nonfinite;
        ok = false;
      } else {
        const double d = std::fabs(g - r);
        const double ulps = d / ulp_of(r);
        c.diff_sq += d * d;
        c.ref_sq += r * r;
        if (c.worst_flat < 0 || d > c.worst_d) c.worst_flat = i, c.worst_d = d, c.worst_g = g, c.worst_r = r, c.worst_ulps = ulps;
        if (r != 0) c.max_rel = std::max(c.max_rel, d / std::fabs(r));
        // Near zero a dtype's ulp shrinks towards its smallest subnormal, so an error far below
        // atol would read as 1e20 ulps; such elements are judged by atol and left out here.
        if (d > tol.atol) {
          c.max_ulps_above = c.any_above_floor ? std::max(c.max_ulps_above, ulps) : ulps;
          c.any_above_floor = true;
        }
        ok = d <= tol.atol + tol.rtol * std::fabs(r) || (tol.ulps > 0 && ulps <= tol.ulps);
        if (!ok && tol.hard_ulps > 0 && ulps > tol.hard_ulps) ++c.beyond_hard_ulps;
      }
      if (!ok) {
        bad[static_cast<size_t>(i)] = true;  // chunks are multiples of 64 elements: no word is shared
        if (c.first_flat < 0) c.first_flat = i, c.first_g = g, c.first_r = r;
        ++c.mismatches;
      }
    }
  }
}

}  // namespace

bool within_tolerance(const OutputMetrics& m, const Tolerance& tol) {
  if (tol.max_mismatch_fraction <= 0) return m.mismatches == 0;
  const double allowed = std::floor(tol.max_mismatch_fraction * static_cast<double>(m.numel));
  return m.unwritten == 0 && m.nonfinite == 0 && m.beyond_hard_ulps == 0 && static_cast<double>(m.mismatches) <= allowed;
}

OutputMetrics compare_output(const TensorPlan& t, const std::vector<uint8_t>& got, const std::vector<double>& ref) {
  OutputMetrics m;
  m.name = t.name;
  m.dtype = dtype_name(t.dtype);
  m.shape = t.shape;
  m.numel = t.numel;
  m.tolerance = t.tolerance;
  const Tolerance& tol = t.tolerance;
  std::vector<bool> bad(static_cast<size_t>(t.numel), false);
  std::vector<ChunkStats> chunks(static_cast<size_t>((t.numel + kElementChunk - 1) / kElementChunk));
  parallel_chunks(t.numel, kElementChunk, [&](int64_t index, int64_t begin, int64_t end) {
    compare_chunk(t, got, ref, begin, end, bad, chunks[static_cast<size_t>(index)]);
  });
  ChunkStats all;
  for (const ChunkStats& c : chunks) all.merge(c);
  m.unwritten = all.unwritten, m.nonfinite = all.nonfinite, m.mismatches = all.mismatches, m.beyond_hard_ulps = all.beyond_hard_ulps;
  m.max_rel_diff = all.max_rel;
  const int64_t worst_flat = all.worst_flat, first_flat = all.first_flat;
  if (worst_flat >= 0) {
    m.max_abs_diff = all.worst_d;
    m.worst = ElementDiff{{}, all.worst_g, all.worst_r};
  }
  if (first_flat >= 0) m.first_mismatch = ElementDiff{unravel(first_flat, t.shape), all.first_g, all.first_r};
  const bool any_above_floor = all.any_above_floor;
  const double worst_ulps = all.worst_ulps;
  if (any_above_floor) m.max_ulps = all.max_ulps_above;
  const double diff_sq = all.diff_sq, ref_sq = all.ref_sq;
  if (m.worst) m.worst->index = unravel(worst_flat, t.shape);
  if (!any_above_floor) m.max_ulps = worst_ulps;
  m.rel_l2 = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  m.mismatch_fraction = t.numel ? static_cast<double>(m.mismatches) / static_cast<double>(t.numel) : 0;
  m.pass = within_tolerance(m, tol);
  if (!m.pass) {
    auto got_at = [&](int64_t i) { return decode_element(t.dtype, got.data(), i); };
    auto ref_at = [&](int64_t i) { return ref[static_cast<size_t>(i)]; };
    m.window = window_around(t.shape, first_flat, got_at, ref_at, bad);
    m.slices = summarize_slices(t.shape, bad);
  }
  return m;
}

}  // namespace hk
