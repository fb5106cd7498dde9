// The parts of a FAIL verdict that explain it: the window around the first mismatch and which
// slices of each dimension are wrong.
#include "check/mismatch_view.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/metrics.h"
#include "report/report.h"

namespace hk {
namespace {

TEST(MismatchView, IndexRanges) {
  const std::vector<bool> f = {true, true, false, true, false, false, true, true, true};
  EXPECT_EQ(index_ranges(f, true), "0-1, 3, 6-8");
  EXPECT_EQ(index_ranges(f, false), "2, 4-5");
  EXPECT_EQ(index_ranges(f, true, 2), "0-1, 3, ... (3 ranges)");
  EXPECT_EQ(index_ranges({false, false}, true), "");
}

TEST(MismatchView, SlicesPerDimension) {
  // 3 x 4: all of row 1 is wrong, and element [2, 0].
  std::vector<bool> bad(12, false);
  for (int c = 0; c < 4; ++c) bad[4 + c] = true;
  bad[8] = true;
  const auto s = summarize_slices({3, 4}, bad);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].wrong, "1-2");
  EXPECT_EQ(s[0].right, "0");
  EXPECT_EQ(s[0].wrong_count, 2);
  EXPECT_EQ(s[1].wrong, "0-3");
  EXPECT_EQ(s[1].right, "");
  EXPECT_TRUE(summarize_slices({12}, bad).empty()) << "a 1-D output has no slices to tell apart";
}

TEST(MismatchView, WindowOfAOneDimensionalOutputIsARowAroundTheMismatch) {
  std::vector<bool> bad(100, false);
  bad[50] = true;
  const auto w = window_around({100}, 50, [](int64_t i) { return i == 50 ? -1.0 : double(i); }, [](int64_t i) { return double(i); }, bad);
  EXPECT_EQ(w.rows, 1);
  EXPECT_EQ(w.cols, kWindowCols);
  EXPECT_EQ(w.origin, (std::vector<int64_t>{48}));
  EXPECT_EQ(w.got[0][2], -1.0);
  EXPECT_EQ(w.expected[0][2], 50.0);
  EXPECT_TRUE(w.wrong[0][2]);
  EXPECT_FALSE(w.wrong[0][1]);
}

// An attention-like output [batch 2, heads 4, dim 8] where heads 1-3 of batch 0 are wrong.
OutputMetrics heads_case() {
  TensorPlan t;
  t.name = "out";
  t.dtype = DType::f32;
  t.shape = {2, 4, 8};
  t.numel = 64;
  t.role = Role::out;
  t.tolerance = {1e-6, 0, 0};
  std::vector<double> ref(64), got(64);
  for (int i = 0; i < 64; ++i) ref[i] = got[i] = i;
  for (int h = 1; h < 4; ++h)
    for (int d = 0; d < 8; ++d) got[h * 8 + d] += 1;
  return compare_output(t, pack(DType::f32, got), ref);
}

TEST(MismatchView, CompareFindsTheWrongHeads) {
  const OutputMetrics m = heads_case();
  ASSERT_FALSE(m.pass);
  ASSERT_EQ(m.slices.size(), 3u);
  EXPECT_EQ(m.slices[0].wrong, "0");
  EXPECT_EQ(m.slices[0].right, "1");
  EXPECT_EQ(m.slices[1].wrong, "1-3");
  EXPECT_EQ(m.slices[1].right, "0");
  EXPECT_EQ(m.slices[2].wrong_count, 8);
  ASSERT_TRUE(m.window);
  EXPECT_EQ(m.window->origin, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(m.window->rows, 4);
  EXPECT_FALSE(m.window->wrong[0][0]);
  EXPECT_TRUE(m.window->wrong[1][0]);
  EXPECT_EQ(m.window->got[1][0], 9.0);
  EXPECT_EQ(m.window->expected[1][0], 8.0);
}

TEST(MismatchView, SurvivesJsonAndShowsInMarkdown) {
  CaseResult r;
  r.kernel = "attn";
  r.case_name = "c";
  r.status = Status::FAIL;
  r.outputs = {heads_case()};
  const CaseResult back = nlohmann::json(r).get<CaseResult>();
  ASSERT_TRUE(back.outputs[0].window);
  EXPECT_EQ(back.outputs[0].window->got, r.outputs[0].window->got);
  EXPECT_EQ(back.outputs[0].slices[1].wrong, "1-3");
  const std::string md = results_markdown(RunInfo{}, {back});
  EXPECT_NE(md.find("dim 1 (size 4): wrong at 1-3; right at 0"), std::string::npos) << md;
  EXPECT_NE(md.find("dim 2 (size 8): wrong at all 8"), std::string::npos) << md;
  EXPECT_NE(md.find("Values of `out` at [0, 0..3, 0..7]"), std::string::npos) << md;
  EXPECT_NE(md.find("**9 / 8**"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0 / 0 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace hk
