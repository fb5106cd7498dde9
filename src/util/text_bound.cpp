#include "util/text_bound.h"

#include <fmt/format.h>

namespace hk {

std::string bounded_text(const std::string& text, size_t max_bytes, const std::string& what) {
  if (text.size() <= max_bytes) return text;
  const size_t half = max_bytes / 2;
  size_t head = half, tail = text.size() - half;
  // Whole lines where a line end is within a quarter of the half: the log stays readable.
  if (const size_t nl = text.rfind('\n', head); nl != std::string::npos && nl + half / 4 >= head) head = nl + 1;
  if (const size_t nl = text.find('\n', tail); nl != std::string::npos && nl <= tail + half / 4) tail = nl + 1;
  return text.substr(0, head) + fmt::format("[... {} bytes of {} left out ...]\n", tail - head, what) + text.substr(tail);
}

}  // namespace hk
