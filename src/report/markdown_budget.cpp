#include "report/markdown_budget.h"

#include <algorithm>

#include "util/report_text.h"

namespace hk {

size_t MarkdownBudget::room() const {
  if (limit_ == kUnlimited) return kUnlimited;
  const size_t usable = limit_ > kClosingRoom ? limit_ - kClosingRoom : 0;
  return usable > text_.size() ? usable - text_.size() : 0;
}

bool MarkdownBudget::add(std::string_view piece, size_t keep_free) {
  const std::string s = utf8_escaped(piece);
  if (limit_ != kUnlimited && s.size() + std::min(keep_free, limit_) > room()) return false;
  text_ += s;
  return true;
}

void MarkdownBudget::add_closing(std::string_view line) {
  std::string s = utf8_escaped(line.substr(0, kClosingLineMax));
  if (line.size() > kClosingLineMax) {
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // not inside a character
    s = utf8_escaped(s) + "...\n";
  }
  if (limit_ == kUnlimited || text_.size() + s.size() <= limit_) text_ += s;
}

size_t MarkdownBudget::add_list(std::string_view head, const std::vector<std::string>& items,
                                const std::function<std::string(size_t)>& more, size_t share) {
  if (items.empty()) return 0;
  const size_t start = text_.size();
  const auto within_share = [&](size_t n) { return share == kUnlimited || limit_ == kUnlimited || text_.size() - start + n <= share; };
  size_t shown = 0;
  if (within_share(head.size()) && add(head)) {
    for (const std::string& item : items) {
      if (!within_share(item.size()) || !add(item)) break;
      ++shown;
    }
  }
  if (shown < items.size()) add_closing(more(items.size() - shown));
  return shown;
}

namespace {

size_t line_count(std::string_view s) {
  if (s.empty()) return 0;
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')) + (s.back() != '\n');
}

}  // namespace

TextExcerpt text_excerpt(std::string_view text, size_t max_lines, size_t max_bytes) {
  TextExcerpt e;
  size_t pos = 0;  // where the lines not shown begin
  for (size_t lines = 0; pos < text.size() && lines < max_lines; ++lines) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    if (e.text.size() + (end - pos) > max_bytes) {
      if (lines == 0) {  // one long first line: its start, marked as cut
        size_t cut = max_bytes;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        e.text = std::string(text.substr(0, cut)) + "...\n";
        pos = end;
      }
      break;
    }
    e.text.append(text.substr(pos, end - pos));
    pos = end;
  }
  e.lines_left_out = line_count(text.substr(pos));
  return e;
}

}  // namespace hk
