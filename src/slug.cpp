#include "slug.h"

#include <cctype>
#include <regex>
#include <sstream>
#include <vector>

namespace hk {

std::string device_slug(const std::string& device_name) {
  // Vendor and brand words, memory sizes and types, and form factors say nothing about the chip.
  static const std::regex noise("nvidia|amd|instinct|geforce|radeon|tesla|graphics|\\d+gb|hbm\\w*|gddr\\w*|pcie|sxm\\d*|nvl|oam");
  std::istringstream in(device_name);
  std::vector<std::string> kept;
  std::string word;
  while (in >> word) {
    std::string w;
    for (char c : word)
      if (std::isalnum(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!w.empty() && !std::regex_match(w, noise)) kept.push_back(w);
  }
  std::string slug;
  for (const auto& k : kept) slug += (slug.empty() ? "" : "-") + k;
  return slug.empty() ? "gpu" : slug;
}

}  // namespace hk
