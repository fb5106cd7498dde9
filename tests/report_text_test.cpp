// Kernel text made safe for each report form: valid UTF-8, XML 1.0 characters only, markdown
// that keeps it on its line, in its code block, and mentions no one.
#include "util/report_text.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

TEST(ReportText, InvalidUtf8BytesAreEscapedAndValidTextKept) {
  EXPECT_EQ(utf8_escaped("plain ascii"), "plain ascii");
  EXPECT_EQ(utf8_escaped("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") << "é € and an emoji are UTF-8";
  EXPECT_EQ(utf8_escaped("a\xff" "b"), "a\\xffb");
  EXPECT_EQ(utf8_escaped("\xc0\x80"), "\\xc0\\x80") << "an overlong NUL";
  EXPECT_EQ(utf8_escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a UTF-16 surrogate";
  EXPECT_EQ(utf8_escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80") << "past U+10FFFF";
  EXPECT_EQ(utf8_escaped("\xe2\x82"), "\\xe2\\x82") << "a sequence cut short";
  EXPECT_EQ(utf8_escaped("\xe2\x82x"), "\\xe2\\x82x");
  EXPECT_TRUE(is_valid_utf8(utf8_escaped("\x80\xbf\xfe\xff\xc2")));
  EXPECT_FALSE(is_valid_utf8("\xc2"));
}

// A long message keeps its beginning and its end (a fault address, a race's lines): its middle goes.
TEST(ReportText, FitColumnsLosesTheMiddle) {
  const std::string msg = "CRASH k/c illegal memory access " + std::string(200, '.') + " at address 0x7f00dead";
  const std::string fitted = fit_columns(msg, 78);
  EXPECT_EQ(fitted.size(), 78u) << fitted;
  EXPECT_EQ(fitted.rfind("CRASH k/c illegal", 0), 0u) << fitted;
  EXPECT_NE(fitted.find(" ... "), std::string::npos) << fitted;
  EXPECT_EQ(fitted.substr(fitted.size() - 10), "0x7f00dead") << fitted;
  EXPECT_EQ(fit_columns("short", 78), "short");
  // Columns are code points: a multi-byte character is never cut.
  std::string accents;
  for (int i = 0; i < 30; ++i) accents += "\u00e9";
  const std::string wide = fit_columns(accents, 20);
  EXPECT_TRUE(is_valid_utf8(wide)) << wide;
  EXPECT_EQ(wide.size(), 15u * 2 + 5) << "15 accents of 2 bytes and the gap: " << wide;
}

TEST(ReportText, JsonTextEscapesEveryStringAndKey) {
  nlohmann::json doc = {{"message", "out\xff"}, {"list", {"ok", "\xfe"}}, {"nested", {{"k\xc0", 1}}}};
  const std::string text = json_text(doc);
  EXPECT_TRUE(is_valid_utf8(text));
  const auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["message"], "out\\xff");
  EXPECT_EQ(back["list"][1], "\\xfe");
  EXPECT_TRUE(back["nested"].contains("k\\xc0"));
}

TEST(ReportText, XmlHoldsOnlyXmlCharacters) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>\x01\x1b\n\t"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\\x01\\x1b\n\t");
  EXPECT_EQ(xml_escape("]]>"), "]]&gt;");
  EXPECT_EQ(xml_escape("\r"), "&#13;");
  EXPECT_EQ(xml_escape("\xef\xbf\xbe \xef\xbf\xbf \xef\xbf\xbd"), "\\uFFFE \\uFFFF \xef\xbf\xbd") << "U+FFFD is a character, U+FFFE/F not";
  EXPECT_EQ(xml_escape("\xff"), "\\xff");
  EXPECT_EQ(xml_escape(std::string("a\0b", 3)), "a\\x00b");
}

TEST(ReportText, InlineMarkdownStaysOnItsLineAndIsInert) {
  const std::string s = md_inline("x\n# heading | @octocat <img src=x> `code` [link](http://a) \\ &amp; \x1b[31m");
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_EQ(s, "x # heading \\| @&#8203;octocat &lt;img src=x&gt; \\`code\\` \\[link\\](http://a) \\\\ &amp;amp; \\\\x1b\\[31m");
  EXPECT_EQ(md_inline("abcdef", 5), "ab...");
  EXPECT_EQ(md_inline("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 6), "\xc3\xa9...") << "cut at a character, not inside one";
  EXPECT_TRUE(is_valid_utf8(md_inline("a\xff")));
}

TEST(ReportText, CodeBlockFenceIsLongerThanAnyBacktickRunInside) {
  EXPECT_EQ(md_code_block("x"), "```\nx\n```\n");
  EXPECT_EQ(md_code_block("```\n# h\n"), "````\n```\n# h\n````\n");
  EXPECT_EQ(md_code_block("a ``````` b"), "````````\na ``````` b\n````````\n");
  EXPECT_EQ(md_code_block("a\rb\x07"), "```\na\\x0db\\x07\n```\n") << "a lone CR ends a markdown line";
  EXPECT_EQ(md_code_span("a`b"), "``a`b``");
  EXPECT_EQ(md_code_span("`x"), "`` `x ``");
  EXPECT_EQ(md_code_span("a|b", true), "`a\\|b`");
}

TEST(ReportText, TerminalLinesCarryNoControlSequence) {
  EXPECT_EQ(terminal_line("case\n\x1b[2J\x07\xff"), "case \\x1b[2J\\x07\\xff");
}

}  // namespace
}  // namespace hk
