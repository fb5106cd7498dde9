// The writer behind every markdown report: pieces whole or not at all, lists that say what they
// left out, and a limit that holds whatever is added.
#include "report/markdown_budget.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

TEST(MarkdownBudget, AListThatDoesNotFitSaysHowManyWereLeftOut) {
  MarkdownBudget md(MarkdownBudget::kClosingRoom + 100);
  const std::vector<std::string> items(50, std::string(9, 'x') + "\n");
  const size_t shown = md.add_list("## head\n", items, [](size_t n) { return std::to_string(n) + " more: see the JSON.\n"; });
  EXPECT_EQ(shown, 9u) << "100 bytes hold the head (8) and nine items of 10";
  EXPECT_NE(md.text().find("41 more: see the JSON."), std::string::npos) << md.text();
  EXPECT_LE(md.text().size(), md.limit());
}

TEST(MarkdownBudget, AShareCapsOneList) {
  MarkdownBudget md(60000);
  const std::vector<std::string> items(1000, std::string(99, 'x') + "\n");
  EXPECT_EQ(md.add_list("", items, [](size_t n) { return std::to_string(n) + " more\n"; }, 1000), 10u);
  EXPECT_NE(md.text().find("990 more"), std::string::npos);
  EXPECT_TRUE(md.add(std::string(50000, 'y'))) << "the rest of the budget is still free";
}

TEST(MarkdownBudget, ThePiecesThatDoNotFitAreLeftOutWhole) {
  MarkdownBudget md(MarkdownBudget::kClosingRoom + 10);
  EXPECT_TRUE(md.add("12345"));
  EXPECT_FALSE(md.add("123456")) << "5 + 6 is over the 10 bytes left for pieces";
  EXPECT_TRUE(md.add("12345"));
  EXPECT_FALSE(md.add("1", 0));
  EXPECT_EQ(md.text(), "1234512345");
}

TEST(MarkdownBudget, KeepFreeLeavesRoomForWhatComesAfter) {
  MarkdownBudget md(MarkdownBudget::kClosingRoom + 100);
  EXPECT_FALSE(md.add(std::string(60, 'a'), 50));
  EXPECT_TRUE(md.add(std::string(50, 'a'), 50));
}

// Closing lines, however many, never take the text past its limit.
TEST(MarkdownBudget, TheLimitHoldsWhateverIsAdded) {
  MarkdownBudget md(MarkdownBudget::kClosingRoom + 1000);
  for (int i = 0; i < 200; ++i) {
    md.add(std::string(static_cast<size_t>(i) * 37 % 900, 'p'));
    md.add_closing(std::string(1000, 'c'));
    md.add_list("h\n", std::vector<std::string>(30, std::string(200, 'i')), [](size_t n) { return std::string(n * 20, 'm'); });
  }
  EXPECT_LE(md.text().size(), md.limit());
}

TEST(MarkdownBudget, PiecesAreMadeValidUtf8AsTheyGoIn) {
  MarkdownBudget md(MarkdownBudget::kClosingRoom + 100);
  EXPECT_TRUE(md.add("a\xff"));
  EXPECT_EQ(md.text(), "a\\xff");
}

TEST(MarkdownBudget, AnUnlimitedBudgetTakesEverything) {
  MarkdownBudget md(MarkdownBudget::kUnlimited);
  const std::vector<std::string> items(100, std::string(1000, 'x'));
  EXPECT_EQ(md.add_list("", items, [](size_t) { return std::string("more"); }, 10), 100u) << "no share either";
}

TEST(TextExcerpt, KeepsTheFirstLinesAndCountsTheRest) {
  const TextExcerpt e = text_excerpt("a\nb\nc\nd\ne", 2, 100);
  EXPECT_EQ(e.text, "a\nb\n");
  EXPECT_EQ(e.lines_left_out, 3u);
  const TextExcerpt whole = text_excerpt("a\nb\n", 2, 100);
  EXPECT_EQ(whole.text, "a\nb\n");
  EXPECT_EQ(whole.lines_left_out, 0u);
  const TextExcerpt bytes = text_excerpt("aaaa\nbbbb\ncccc\n", 10, 12);
  EXPECT_EQ(bytes.text, "aaaa\nbbbb\n");
  EXPECT_EQ(bytes.lines_left_out, 1u);
}

TEST(TextExcerpt, ALongFirstLineIsCutAtACharacter) {
  const std::string line = "\xc3\xa9" + std::string(20, 'x') + "\nnext\n";  // é, then more
  const TextExcerpt e = text_excerpt(line, 5, 1);
  EXPECT_EQ(e.text, "...\n") << "one byte would split é";
  EXPECT_EQ(e.lines_left_out, 1u);
  EXPECT_EQ(text_excerpt(line, 5, 4).text, "\xc3\xa9xx...\n");
}

}  // namespace
}  // namespace hk
