#include "check/mismatch_view.h"

#include <algorithm>
#include <fmt/format.h>

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

std::string index_ranges(const std::vector<bool>& flags, bool value, size_t max_ranges) {
  std::vector<std::string> parts;
  size_t total = 0;
  const size_t n = flags.size();
  for (size_t i = 0; i < n;) {
    if (flags[i] != value) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < n && flags[j + 1] == value) ++j;
    if (parts.size() < max_ranges) parts.push_back(i == j ? std::to_string(i) : fmt::format("{}-{}", i, j));
    ++total;
    i = j + 1;
  }
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  if (total > parts.size()) s += fmt::format(", ... ({} ranges)", total);
  return s;
}

MismatchWindow window_around(const std::vector<int64_t>& shape, int64_t first_flat, const std::function<double(int64_t)>& got,
                             const std::function<double(int64_t)>& expected, const std::vector<bool>& bad) {
  MismatchWindow w;
  if (shape.empty()) {  // a scalar output
    w.origin = {};
    w.rows = w.cols = 1;
    w.got = {{got(0)}};
    w.expected = {{expected(0)}};
    w.wrong = {{bad[0]}};
    return w;
  }
  const std::vector<int64_t> at = unravel(first_flat, shape);
  const size_t nd = shape.size();
  // Start a little before the mismatch so the last right values show too.
  auto span = [](int64_t pos, int64_t size, int64_t len, int64_t before) {
    len = std::min(len, size);
    const int64_t start = std::clamp<int64_t>(pos - before, 0, size - len);
    return std::pair{start, len};
  };
  const auto [c0, cols] = span(at[nd - 1], shape[nd - 1], kWindowCols, 2);
  int64_t r0 = 0, rows = 1;
  if (nd >= 2) std::tie(r0, rows) = span(at[nd - 2], shape[nd - 2], kWindowRows, 1);
  w.origin = at;
  w.origin[nd - 1] = c0;
  if (nd >= 2) w.origin[nd - 2] = r0;
  w.rows = rows, w.cols = cols;
  // Row-major strides, to address the window's elements.
  std::vector<int64_t> stride(nd, 1);
  for (size_t d = nd - 1; d-- > 0;) stride[d] = stride[d + 1] * shape[d + 1];
  int64_t base = 0;
  for (size_t d = 0; d < nd; ++d) base += w.origin[d] * stride[d];
  const int64_t row_stride = nd >= 2 ? stride[nd - 2] : 0;
  for (int64_t r = 0; r < rows; ++r) {
    w.got.emplace_back(), w.expected.emplace_back(), w.wrong.emplace_back();
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t flat = base + r * row_stride + c;
      w.got.back().push_back(got(flat));
      w.expected.back().push_back(expected(flat));
      w.wrong.back().push_back(bad[static_cast<size_t>(flat)]);
    }
  }
  return w;
}

std::vector<SliceSummary> summarize_slices(const std::vector<int64_t>& shape, const std::vector<bool>& bad) {
  std::vector<SliceSummary> out;
  const size_t nd = shape.size();
  if (nd < 2) return out;
  std::vector<std::vector<bool>> wrong(nd);
  for (size_t d = 0; d < nd; ++d) wrong[d].assign(static_cast<size_t>(std::max<int64_t>(shape[d], 0)), false);
  std::vector<int64_t> idx(nd, 0);  // the multi-index of element i, stepped along (no division per element)
  for (size_t i = 0; i < bad.size(); ++i) {
    if (bad[i])
      for (size_t d = 0; d < nd; ++d) wrong[d][static_cast<size_t>(idx[d])] = true;
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  for (size_t d = 0; d < nd; ++d) {
    SliceSummary s;
    s.dim = static_cast<int>(d);
    s.size = shape[d];
    s.wrong_count = std::count(wrong[d].begin(), wrong[d].end(), true);
    s.wrong = index_ranges(wrong[d], true);
    s.right = index_ranges(wrong[d], false);
    out.push_back(s);
  }
  return out;
}

}  // namespace hk
