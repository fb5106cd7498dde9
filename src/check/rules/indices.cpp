#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

#include "check/rules/rules.h"

namespace hk {

namespace {

int64_t last_dim(const TensorPlan& t) { return t.shape.empty() ? 1 : std::max<int64_t>(t.shape.back(), 1); }

// What the kernel's indices select, as a tensor of the source's dtype and the index output's
// shape; positions whose index is unwritten stay poisoned, so they count as unwritten.
struct IndexSelection {
  TensorPlan plan;
  std::vector<uint8_t> got;
  std::vector<double> expected;
  int64_t out_of_range = 0, rows_with_repeats = 0;
  std::string first_out_of_range, first_repeat;
};

IndexSelection select(const CheckInput& in, const TensorPlan& idx, const TensorPlan& src) {
  const std::vector<double>& values = in.ctx.tensors.at(src.name).data;
  const std::vector<double>& ref_idx = in.ctx.tensors.at(idx.name).data;
  const int64_t k = last_dim(idx), n = last_dim(src);
  IndexSelection s;
  s.plan = idx;
  s.plan.dtype = src.dtype;
  s.got = poisoned_buffer(src.dtype, idx.numel);
  s.expected.resize(static_cast<size_t>(idx.numel));
  const uint8_t* raw = in.got[in.out].data();
  std::unordered_set<int64_t> seen;
  for (int64_t row = 0; row * k < idx.numel; ++row) {
    seen.clear();
    bool repeated = false;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t e = row * k + j;
      const double r = ref_idx[static_cast<size_t>(e)];
      if (!(r >= 0 && r < static_cast<double>(n) && r == std::floor(r)))
        throw std::runtime_error(fmt::format("the reference's '{}' holds {} at row {} position {}, not an index into a row of {} ({} elements)",
                                             idx.name, r, row, j, src.name, n));
      s.expected[static_cast<size_t>(e)] = values[static_cast<size_t>(row * n + static_cast<int64_t>(r))];
      if (is_poison_element(idx.dtype, raw, e)) continue;
      const double g = decode_element(idx.dtype, raw, e);
      if (!(g >= 0 && g < static_cast<double>(n))) {
        // Judged here, not as a value: the element takes the expected value so the figures of the
        // comparison describe only the indices that select something.
        if (s.out_of_range++ == 0) s.first_out_of_range = fmt::format("row {} position {} is {:.0f}", row, j, g);
        encode_element(src.dtype, s.expected[static_cast<size_t>(e)], s.got.data(), e);
        continue;
      }
      const int64_t gi = static_cast<int64_t>(g);
      encode_element(src.dtype, values[static_cast<size_t>(row * n + gi)], s.got.data(), e);
      if (!seen.insert(gi).second && !repeated) {
        repeated = true;
        if (s.rows_with_repeats == 0) s.first_repeat = fmt::format("row {} repeats {}", row, gi);
        ++s.rows_with_repeats;
      }
    }
  }
  return s;
}

}  // namespace

void run_indices(const CheckInput& in, const CheckPlan& p, OutputMetrics& m) {
  const TensorPlan& idx = in.plan.tensors[in.out];
  const TensorPlan& src = in.plan.tensors[static_cast<size_t>(p.tensor("into"))];
  IndexSelection s = select(in, idx, src);
  if (p.flag("unordered")) sort_rows_descending(s.plan, s.got, s.expected);
  m = compare_output(s.plan, s.got, s.expected);
  m.dtype = dtype_name(idx.dtype);
  m.compare = p.flag("unordered") ? "indices, unordered" : "indices";
  CheckOutcome o;
  o.rule = "indices";
  o.pass = s.out_of_range == 0 && s.rows_with_repeats == 0;
  if (o.pass) {
    o.summary = fmt::format("every index in [0, {}) and distinct within its row; compared by the values of '{}' they select",
                            last_dim(src), src.name);
  } else {
    o.summary = fmt::format("{} index(es) outside [0, {}){}; {} row(s) with a repeated index{}", s.out_of_range, last_dim(src),
                            s.out_of_range ? " (first: " + s.first_out_of_range + ")" : "", s.rows_with_repeats,
                            s.rows_with_repeats ? " (first: " + s.first_repeat + ")" : "");
  }
  o.figures = {{"out_of_range", static_cast<double>(s.out_of_range)}, {"rows_with_repeats", static_cast<double>(s.rows_with_repeats)}};
  m.checks.push_back(std::move(o));
}

}  // namespace hk
