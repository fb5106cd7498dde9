// Guard regions and repeated-launch comparison, as units: no device needed.
#include "guard.h"

#include <gtest/gtest.h>

#include "repeat_compare.h"

namespace hk {
namespace {

TEST(Guard, UntouchedGuardIsClean) {
  EXPECT_FALSE(check_guard("out", "before", guard_pattern()));
  EXPECT_FALSE(check_guard("out", "after", guard_pattern()));
  EXPECT_EQ(kGuardBytes % 256, 0u) << "the tensor must keep the allocation's alignment";
}

TEST(Guard, WritePastTheEndGivesOffsetsFromTheEnd) {
  std::vector<uint8_t> after = guard_pattern();
  for (int i = 0; i < 4; ++i) after[i] = 0;  // one f32 written at out[n]
  const auto g = check_guard("out", "after", after);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->tensor, "out");
  EXPECT_EQ(g->bytes, 4);
  EXPECT_EQ(g->first_offset, 0);
  EXPECT_EQ(g->last_offset, 3);
  EXPECT_NE(describe(*g).find("4 guard byte(s) changed after the end (offsets +0..+3"), std::string::npos) << describe(*g);
}

TEST(Guard, WriteBeforeTheStartGivesNegativeOffsets) {
  std::vector<uint8_t> before = guard_pattern();
  before[kGuardBytes - 2] = 1;  // out[-1] of a 2-byte dtype
  before[kGuardBytes - 1] = 2;
  before[0] = 3;  // far before: counted too, and widens the range
  const auto g = check_guard("x", "before", before);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->bytes, 3);
  EXPECT_EQ(g->first_offset, -static_cast<int64_t>(kGuardBytes));
  EXPECT_EQ(g->last_offset, -1);
}

TEST(RepeatCompare, CountsDifferingElementsNotBytes) {
  std::vector<uint8_t> a(16, 0), b(16, 0);
  EXPECT_EQ(differing_elements(a, b, 4), 0);
  b[1] = 1;  // element 0
  b[2] = 1;  // element 0 again
  b[15] = 1;  // element 3
  EXPECT_EQ(differing_elements(a, b, 4), 2);
  EXPECT_EQ(differing_elements(a, b, 1), 3);
  EXPECT_THROW(differing_elements(a, std::vector<uint8_t>(8), 4), std::logic_error);
}

}  // namespace
}  // namespace hk
