// The blocked arithmetic the references share: hk::ref::product (tiles of 256 x 512 on the
// context's threads) and attn_ref::attend_rows (rows in blocks of 256, each against the keys its
// rows see). Shapes cross the tiles' and blocks' edges, so a tile or block that is skipped,
// counted twice or offset shows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attention_common.h"
#include "reference.h"

namespace hk {
namespace {

using ref::RowMatrix;

RowMatrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  RowMatrix m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = normal(rng);
  return m;
}

double max_relative_difference(const RowMatrix& a, const RowMatrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1e-300);
}

TEST(ReferenceProduct, EveryTileOnceAndTheSameBitsAtAnyThreadCount) {
  for (const auto& [m, k, n] : {std::tuple{300, 77, 1100}, std::tuple{3, 5, 2}, std::tuple{513, 64, 257}, std::tuple{1, 40, 1}}) {
    const RowMatrix a = random_matrix(m, k, 1), b = random_matrix(n, k, 2);
    const RowMatrix plain = a * b.transpose();
    ref::Context one;
    one.threads = 1;
    const RowMatrix tiled = ref::product(one, a, b.transpose());
    ASSERT_EQ(tiled.rows(), m);
    ASSERT_EQ(tiled.cols(), n);
    EXPECT_LT(max_relative_difference(tiled, plain), 1e-13) << m << " x " << k << " x " << n;
    for (int threads : {2, 5}) {
      ref::Context several;
      several.threads = threads;
      EXPECT_TRUE(ref::product(several, a, b.transpose()) == tiled) << threads << " threads";
    }
  }
}

// Query r sees keys j < hi[r] (a causal mask of 600 rows over 640 keys: more than two blocks).
struct Attention {
  int n = 600, m = 640, D = 8;
  RowMatrix q = random_matrix(n, D, 3), k = random_matrix(m, D, 4), v = random_matrix(m, D, 5);
  std::vector<int> hi;
  Attention() {
    for (int r = 0; r < n; ++r) hi.push_back(r % 7 == 3 ? 0 : std::min(m, r + m - n + 1));  // some rows see nothing
  }
  attn_ref::Row row_of(const RowMatrix& t) const {
    return [&t](int j) { return t.data() + static_cast<Eigen::Index>(j) * t.cols(); };
  }
};

TEST(AttendRows, EachRowAsAttendingItAloneGivesAcrossTheBlocks) {
  const Attention t;
  RowMatrix out(t.n, t.D), alone(t.n, t.D);
  std::vector<double> lse(t.n), lse_alone(t.n);
  attn_ref::RowSet rs;
  for (int r = 0; r < t.n; ++r) rs.add(t.q.data() + r * t.D, out.data() + r * t.D, &lse[r], t.hi[r]);
  attn_ref::attend_rows(rs, t.D, t.row_of(t.k), t.row_of(t.v), 0.3);
  for (int r = 0; r < t.n; ++r)
    attn_ref::attend(t.q.data() + r * t.D, t.D, 0, t.hi[r], t.row_of(t.k), t.row_of(t.v), 0.3, alone.data() + r * t.D, &lse_alone[r]);
  EXPECT_LT(max_relative_difference(out, alone), 1e-12);
  for (int r = 0; r < t.n; ++r) {
    if (t.hi[r] == 0) EXPECT_TRUE(std::isinf(lse[r]) && lse[r] < 0) << r;
    else EXPECT_NEAR(lse[r], lse_alone[r], 1e-12) << r;
  }
}

TEST(AttendRows, TheHstuFormSeesItsRowsBiasAcrossTheBlocks) {
  const Attention t;
  RowMatrix out(t.n, t.D);
  attn_ref::RowSet rs;
  for (int r = 0; r < t.n; ++r) rs.add(t.q.data() + r * t.D, out.data() + r * t.D, nullptr, t.hi[r]);
  const auto bias = [](int r, int j) { return 0.01 * r - 0.02 * j; };
  attn_ref::attend_rows(rs, t.D, t.row_of(t.k), t.row_of(t.v), 0.3, 0.5, bias);
  for (int r : {0, 255, 256, 257, 511, 512, 599}) {
    for (int d = 0; d < t.D; ++d) {
      double want = 0.0;
      for (int j = 0; j < t.hi[r]; ++j) {
        const double x = 0.3 * t.q.row(r).dot(t.k.row(j)) + bias(r, j);
        want += x / (1.0 + std::exp(-x)) * 0.5 * t.v(j, d);
      }
      EXPECT_NEAR(out(r, d), want, 1e-12 * (1.0 + std::fabs(want))) << r << ", " << d;
    }
  }
}

}  // namespace
}  // namespace hk
