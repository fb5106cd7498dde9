// Names of files and folders made from other names.
#pragma once

#include <string>

namespace hk {

// Short folder names for devices: "NVIDIA H100 80GB HBM3" -> "h100", "AMD Instinct MI325X" -> "mi325x".
std::string device_slug(const std::string& device_name);

// A file or folder name for any text (a kernel, case or tensor name), one per text: a name of
// letters, digits and `_ - . =`, not starting with '.' and at most kMaxSlugBytes long, is kept as
// it is; any other becomes those characters (others replaced by '_', a leading '.' by '_', cut
// to fit) followed by '+' and 16 hex digits of a 64-bit hash of the whole text. A kept name
// never holds '+', so the two kinds never meet, and two texts share a name only if their hashes
// do. Short enough that a suffix, a temporary file's and ".rerun" still fit in 255 bytes.
constexpr size_t kMaxSlugBytes = 120;
std::string file_name_slug(const std::string& text);

}  // namespace hk
