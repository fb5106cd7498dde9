// Guard regions and repeated-launch comparison, as units: no device needed.
#include "check/guard.h"

#include <gtest/gtest.h>

#include "check/repeat_compare.h"

namespace hk {
namespace {

TEST(Guard, UntouchedGuardIsClean) {
  EXPECT_FALSE(check_guard("out", "before", guard_pattern(0, "before"), guard_pattern(0, "before")));
  EXPECT_FALSE(check_guard("out", "after", guard_pattern(0, "after"), guard_pattern(0, "after")));
  EXPECT_EQ(kGuardBytes % 256, 0u) << "the tensor must keep the allocation's alignment";
}

TEST(Guard, WritePastTheEndGivesOffsetsFromTheEnd) {
  std::vector<uint8_t> after = guard_pattern(0, "after");
  for (int i = 0; i < 4; ++i) after[i] = 0;  // one f32 written at out[n]
  const auto g = check_guard("out", "after", after, guard_pattern(0, "after"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->tensor, "out");
  EXPECT_EQ(g->bytes, 4);
  EXPECT_EQ(g->first_offset, 0);
  EXPECT_EQ(g->last_offset, 3);
  EXPECT_NE(describe(*g).find("4 guard byte(s) changed after the end (offsets +0..+3"), std::string::npos) << describe(*g);
}

TEST(Guard, WriteBeforeTheStartGivesNegativeOffsets) {
  std::vector<uint8_t> before = guard_pattern(1, "before");
  before[kGuardBytes - 2] = 1;  // out[-1] of a 2-byte dtype
  before[kGuardBytes - 1] = 2;
  before[0] = 3;  // far before: counted too, and widens the range
  const auto g = check_guard("x", "before", before, guard_pattern(1, "before"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->bytes, 3);
  EXPECT_EQ(g->first_offset, -static_cast<int64_t>(kGuardBytes));
  EXPECT_EQ(g->last_offset, -1);
}

// `if (i <= n) out[i] = x[i]` copies x's first guard bytes after the end onto out's: with one
// pattern for every buffer nothing would change. Every buffer and side has its own, at every offset.
TEST(Guard, ACopyFromOneGuardIntoAnotherIsSeen) {
  for (size_t a = 0; a < 8; ++a)
    for (size_t b = 0; b < 8; ++b)
      for (const char* sa : {"before", "after"})
        for (const char* sb : {"before", "after"}) {
          if (a == b && std::string(sa) == sb) continue;
          const auto g = check_guard("out", sb, guard_pattern(a, sa), guard_pattern(b, sb));
          ASSERT_TRUE(g) << a << sa << " vs " << b << sb;
          EXPECT_EQ(g->bytes, static_cast<int64_t>(kGuardBytes)) << a << sa << " vs " << b << sb;
        }
}

// With the backend's slack (the host backend's rest of a page), the regions reach from the start
// of the slack to the tensor and from the tensor's end to the end of the slack, and offsets are
// counted from the tensor as before.
TEST(Guard, RegionsCoverTheWholeSlack) {
  const uint64_t allocation = 0x10000;  // of 100 bytes + 2 * kGuardBytes
  const BufferGuards g = buffer_guards(2, allocation, 100, 3328, 156);
  EXPECT_EQ(g.before_at, allocation - 3328);
  EXPECT_EQ(g.before.size(), 3328 + kGuardBytes);
  EXPECT_EQ(g.after_at, allocation + kGuardBytes + 100);
  EXPECT_EQ(g.after.size(), kGuardBytes + 156);
  EXPECT_EQ(std::vector<uint8_t>(g.before.end() - kGuardBytes, g.before.end()), guard_pattern(2, "before"))
      << "next to the tensor the pattern is the one without slack";
  std::vector<uint8_t> region = g.before;
  region[region.size() - 260] ^= 1;
  region[0] ^= 1;
  const auto v = check_guard("out", "before", region, g.before);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->bytes, 2);
  EXPECT_EQ(v->first_offset, -3584);
  EXPECT_EQ(v->last_offset, -260);
  EXPECT_FALSE(check_guard("out", "after", g.after, g.after));
  const BufferGuards gpu = buffer_guards(2, allocation, 100, 0, 0);
  EXPECT_EQ(gpu.before_at, allocation);
  EXPECT_EQ(gpu.before.size(), kGuardBytes);
  EXPECT_EQ(gpu.after.size(), kGuardBytes);
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
