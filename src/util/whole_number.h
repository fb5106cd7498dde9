// A command-line count or seed: the whole text a decimal number, nothing else.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

namespace hk {

inline std::optional<uint64_t> parse_whole_number(const std::string& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace hk
