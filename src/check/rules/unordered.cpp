#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "check/rules/rules.h"

namespace hk {

namespace {

int64_t row_length(const TensorPlan& t) { return t.shape.empty() ? 1 : std::max<int64_t>(t.shape.back(), 1); }

// Larger first; NaN after every number, an unwritten element after everything.
struct SortKey {
  int rank;  // 0 number, 1 NaN, 2 unwritten
  double value;
  bool operator<(const SortKey& o) const { return rank != o.rank ? rank < o.rank : value > o.value; }
};

}  // namespace

void sort_rows_descending(const TensorPlan& t, std::vector<uint8_t>& got, std::vector<double>& expected) {
  const int64_t n = row_length(t);
  const size_t unit = dtype_size(t.dtype);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<SortKey> keys(static_cast<size_t>(n));
  std::vector<uint8_t> row_bytes(static_cast<size_t>(n) * unit);
  for (int64_t row = 0; row * n < t.numel; ++row) {
    uint8_t* g = got.data() + static_cast<size_t>(row * n) * unit;
    for (int64_t j = 0; j < n; ++j) {
      const double v = decode_element(t.dtype, g, j);
      keys[static_cast<size_t>(j)] = is_poison_element(t.dtype, g, j) ? SortKey{2, 0} : std::isnan(v) ? SortKey{1, 0} : SortKey{0, v};
    }
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)]; });
    for (int64_t j = 0; j < n; ++j) std::memcpy(&row_bytes[static_cast<size_t>(j) * unit], g + static_cast<size_t>(order[static_cast<size_t>(j)]) * unit, unit);
    std::memcpy(g, row_bytes.data(), row_bytes.size());
    double* e = expected.data() + row * n;
    std::stable_sort(e, e + n, [](double a, double b) { return SortKey{std::isnan(a) ? 1 : 0, a} < SortKey{std::isnan(b) ? 1 : 0, b}; });
  }
}

void run_unordered(const CheckInput& in, const CheckPlan&, OutputMetrics& m) {
  const TensorPlan& t = in.plan.tensors[in.out];
  std::vector<uint8_t> got = in.got[in.out];
  std::vector<double> expected = in.ctx.tensors.at(t.name).data;
  sort_rows_descending(t, got, expected);
  m = compare_output(t, got, expected);
  m.compare = "unordered";
}

}  // namespace hk
