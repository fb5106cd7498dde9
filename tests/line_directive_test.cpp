// A #line names any file: a quote, a backslash or a newline in its path stays inside the string.
#include "compile/line_directive.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

TEST(LineDirective, EscapesWhatWouldEndTheName) {
  EXPECT_EQ(line_directive(1, "/p/k.cu"), "#line 1 \"/p/k.cu\"");
  EXPECT_EQ(line_directive(7, "/a\nb/\"q\"\\k.cu"), "#line 7 \"/a\\012b/\\\"q\\\"\\\\k.cu\"");
  EXPECT_EQ(line_directive(2, "/tab\there\x7f"), "#line 2 \"/tab\\011here\\177\"");
  EXPECT_EQ(line_directive(3, "/ünïcode"), "#line 3 \"/ünïcode\"") << "bytes past ASCII stay as they are";
}

}  // namespace
}  // namespace hk
