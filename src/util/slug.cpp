#include "util/slug.h"

#include "util/fnv1a.h"

#include <array>
#include <cctype>
#include <fmt/format.h>
#include <sstream>
#include <string_view>
#include <vector>

namespace hk {
namespace {

bool starts_with_then_digits(std::string_view w, std::string_view head, bool need_digits) {
  if (!w.starts_with(head)) return false;
  w.remove_prefix(head.size());
  if (need_digits && w.empty()) return false;
  for (char c : w)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Vendor and brand words, memory sizes and types, and form factors say nothing about the chip.
bool is_noise(std::string_view w) {
  // Words of a device's name, not a backend name.
  static constexpr std::array<std::string_view, 10> words = {"nvidia", "amd",  "instinct", "geforce", "radeon",
                                                             "tesla",  "graphics", "pcie", "nvl",     "oam"};
  for (std::string_view n : words)
    if (w == n) return true;
  if (w.starts_with("hbm") || w.starts_with("gddr") || starts_with_then_digits(w, "sxm", false)) return true;
  // A memory size: digits then "gb" (80gb, 192gb).
  return w.size() > 2 && w.ends_with("gb") && starts_with_then_digits(w.substr(0, w.size() - 2), "", true);
}

}  // namespace

std::string device_slug(const std::string& device_name) {
  std::istringstream in(device_name);
  std::vector<std::string> kept;
  std::string word;
  while (in >> word) {
    std::string w;
    for (char c : word)
      if (std::isalnum(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!w.empty() && !is_noise(w)) kept.push_back(w);
  }
  std::string slug;
  for (const auto& k : kept) slug += (slug.empty() ? "" : "-") + k;
  return slug.empty() ? "gpu" : slug;
}

std::string file_name_slug(const std::string& text) {
  std::string slug;
  for (char ch : text) slug += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.' || ch == '=' ? ch : '_';
  if (slug == text && !text.empty() && text[0] != '.' && text.size() <= kMaxSlugBytes) return text;
  if (!slug.empty() && slug[0] == '.') slug[0] = '_';
  const std::string hash = fmt::format("+{:016x}", fnv1a(text));
  return slug.substr(0, kMaxSlugBytes - hash.size()) + hash;
}

}  // namespace hk
