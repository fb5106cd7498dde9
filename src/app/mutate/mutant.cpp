#include "app/mutate/mutant.h"

#include <algorithm>
#include <fmt/format.h>

namespace hk {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

size_t line_at_offset(const std::string& text, size_t offset) { return std::count(text.begin(), text.begin() + std::min(offset, text.size()), '\n'); }

}  // namespace

std::string apply_mutant(const std::string& source, const Mutant& m) {
  return source.substr(0, m.begin) + m.replacement + source.substr(std::min(m.end, source.size()));
}

std::string mutant_diff(const std::string& path, const std::string& source, const Mutant& m) {
  const std::vector<std::string> before = split_lines(source), after = split_lines(apply_mutant(source, m));
  // The edit's lines: from the line of its first byte to that of its last, in each version.
  const size_t first = line_at_offset(source, m.begin);
  const size_t last_before = line_at_offset(source, m.end > m.begin ? m.end - 1 : m.begin);
  const size_t changed_after = (last_before - first + 1) + std::count(m.replacement.begin(), m.replacement.end(), '\n') -
                               std::count(source.begin() + m.begin, source.begin() + std::min(m.end, source.size()), '\n');
  const size_t context = 3;
  const size_t from = first >= context ? first - context : 0;
  const size_t tail_before = std::min(before.size(), last_before + 1 + context);
  const size_t tail_after = std::min(after.size(), first + changed_after + context);
  std::string out = fmt::format("--- a/{0}\n+++ b/{0}\n@@ -{1},{2} +{1},{3} @@\n", path, from + 1, tail_before - from, tail_after - from);
  for (size_t i = from; i < first; ++i) out += " " + before[i] + "\n";
  for (size_t i = first; i <= last_before && i < before.size(); ++i) out += "-" + before[i] + "\n";
  for (size_t i = first; i < first + changed_after && i < after.size(); ++i) out += "+" + after[i] + "\n";
  for (size_t i = last_before + 1; i < tail_before; ++i) out += " " + before[i] + "\n";
  return out;
}

}  // namespace hk
