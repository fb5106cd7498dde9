// A compiler's log quoted into a case record is bounded, keeping both ends and saying what went.
#include "util/text_bound.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

TEST(TextBound, ShortTextIsKeptWhole) { EXPECT_EQ(bounded_text("a\nb\n", 100, "the log"), "a\nb\n"); }

TEST(TextBound, LongTextKeepsBothEndsAndSaysHowMuchWentInBetween) {
  std::string log;
  for (int i = 0; i < 100000; ++i) log += "k.cu(" + std::to_string(i) + "): warning: unused variable\n";
  const std::string kept = bounded_text(log, 64 * 1024, "the compiler's log");
  EXPECT_LT(kept.size(), 64u * 1024 + 100);
  EXPECT_EQ(kept.rfind("k.cu(0): warning", 0), 0u) << "the first warning stays";
  EXPECT_NE(kept.find("k.cu(99999): warning: unused variable\n"), std::string::npos) << "and the last";
  EXPECT_NE(kept.find("bytes of the compiler's log left out ...]\n"), std::string::npos);
  const size_t mark = kept.find("[...");
  ASSERT_NE(mark, std::string::npos);
  EXPECT_EQ(kept[mark - 1], '\n') << "cut at a line end";
}

TEST(TextBound, ALogWithoutLineEndsIsCutAnyway) {
  const std::string kept = bounded_text(std::string(1 << 20, 'x'), 1000, "the log");
  EXPECT_LT(kept.size(), 1100u);
}

}  // namespace
}  // namespace hk
