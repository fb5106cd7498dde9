#include "metrics.h"

#include <cmath>

namespace hk {

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t n = shape[d] > 0 ? shape[d] : 1;
    idx[d] = flat % n;
    flat /= n;
  }
  return idx;
}

OutputMetrics compare_output(const TensorPlan& t, const std::vector<uint8_t>& got, const std::vector<double>& ref) {
  OutputMetrics m;
  m.name = t.name;
  m.dtype = dtype_name(t.dtype);
  m.shape = t.shape;
  m.numel = t.numel;
  m.tolerance = t.tolerance;
  const Tolerance& tol = t.tolerance;
  double diff_sq = 0, ref_sq = 0;
  int64_t worst_flat = -1;
  double worst_ulps = 0;       // at the element of max_abs_diff
  bool any_above_floor = false;
  std::vector<bool> bad(static_cast<size_t>(t.numel), false);
  int64_t first_flat = -1;
  for (int64_t i = 0; i < t.numel; ++i) {
    const double r = ref[static_cast<size_t>(i)];
    const double g = decode_element(t.dtype, got.data(), i);
    bool ok;
    // A poison pattern equal to the reference is a right value either way (fp4 has no NaN to
    // poison with, so its poison is an ordinary pair of values).
    if (is_poison_element(t.dtype, got.data(), i) && !(g == r || (std::isnan(r) && is_float(t.dtype)))) {
      ++m.unwritten;
      ok = false;
    } else if (!std::isfinite(r)) {
      ok = (std::isnan(r) && std::isnan(g)) || g == r;  // the same NaN-ness or the same Inf
    } else if (!std::isfinite(g)) {
      ++m.nonfinite;
      ok = false;
    } else {
      const double d = std::fabs(g - r);
      const double ulps = d / ulp_at(t.dtype, r);
      diff_sq += d * d;
      ref_sq += r * r;
      if (worst_flat < 0 || d > m.max_abs_diff) {
        worst_flat = i;
        m.max_abs_diff = d;
        m.worst = ElementDiff{{}, g, r};
        worst_ulps = ulps;
      }
      if (r != 0) m.max_rel_diff = std::max(m.max_rel_diff, d / std::fabs(r));
      // Near zero a dtype's ulp shrinks towards its smallest subnormal, so an error far below
      // atol would read as 1e20 ulps; such elements are judged by atol and left out here.
      if (d > tol.atol) {
        m.max_ulps = any_above_floor ? std::max(m.max_ulps, ulps) : ulps;
        any_above_floor = true;
      }
      ok = d <= tol.atol + tol.rtol * std::fabs(r) || (tol.ulps > 0 && ulps <= tol.ulps);
      if (!ok && tol.hard_ulps > 0 && ulps > tol.hard_ulps) ++m.beyond_hard_ulps;
    }
    if (!ok) {
      bad[static_cast<size_t>(i)] = true;
      if (first_flat < 0) first_flat = i;
      ++m.mismatches;
      if (!m.first_mismatch) m.first_mismatch = ElementDiff{unravel(i, t.shape), g, r};
    }
  }
  if (m.worst) m.worst->index = unravel(worst_flat, t.shape);
  if (!any_above_floor) m.max_ulps = worst_ulps;
  m.rel_l2 = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  m.mismatch_fraction = t.numel ? static_cast<double>(m.mismatches) / static_cast<double>(t.numel) : 0;
  if (tol.max_mismatch_fraction > 0) {
    const double allowed = std::floor(tol.max_mismatch_fraction * static_cast<double>(t.numel));
    m.pass = m.unwritten == 0 && m.nonfinite == 0 && m.beyond_hard_ulps == 0 && static_cast<double>(m.mismatches) <= allowed;
  } else {
    m.pass = m.mismatches == 0;
  }
  if (!m.pass) {
    auto got_at = [&](int64_t i) { return decode_element(t.dtype, got.data(), i); };
    auto ref_at = [&](int64_t i) { return ref[static_cast<size_t>(i)]; };
    m.window = window_around(t.shape, first_flat, got_at, ref_at, bad);
    m.slices = summarize_slices(t.shape, bad);
  }
  return m;
}

}  // namespace hk
