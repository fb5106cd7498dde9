// A markdown document for a pull-request comment that never grows past its size, whatever the
// run holds: each piece goes in whole or not at all, and a list that cannot show all its items
// ends with a line saying how many were left out and where they are. Pieces are utf8_escaped as
// they go in, so what is counted is what is written.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hk {

class MarkdownBudget {
 public:
  // The last kClosingRoom bytes of the limit are kept for closing lines (a list's "N more" line,
  // add_closing), each at most kClosingLineMax bytes: what was left out is always said.
  static constexpr size_t kClosingRoom = 3000;
  static constexpr size_t kClosingLineMax = 300;
  static constexpr size_t kUnlimited = std::string::npos;

  // limit: the most bytes the text may hold (bytes, never fewer than its characters).
  explicit MarkdownBudget(size_t limit) : limit_(limit) {}

  // Appends piece if it fits and leaves keep_free bytes (beyond the closing room) for what comes
  // after; returns whether it went in.
  bool add(std::string_view piece, size_t keep_free = 0);
  // A line that says what was left out: it may use the closing room. Cut to kClosingLineMax.
  void add_closing(std::string_view line);
  // head, then items in order while they fit within share bytes (head included) and the budget;
  // when some are left out, more(how many) as a closing line. Nothing when items is empty. An
  // unlimited budget ignores share.
  // Returns how many items went in.
  size_t add_list(std::string_view head, const std::vector<std::string>& items, const std::function<std::string(size_t)>& more,
                  size_t share = kUnlimited);

  // Bytes an ordinary piece may still take.
  size_t room() const;
  size_t limit() const { return limit_; }
  const std::string& text() const { return text_; }

 private:
  size_t limit_;
  std::string text_;
};

// The first lines of a long text (a compiler log, a message): at most max_lines lines and
// max_bytes bytes (cut at a line, or inside a first line that is longer), and how many lines
// were left out. A text within both comes back whole.
struct TextExcerpt {
  std::string text;
  size_t lines_left_out = 0;
};
TextExcerpt text_excerpt(std::string_view text, size_t max_lines, size_t max_bytes);

}  // namespace hk
