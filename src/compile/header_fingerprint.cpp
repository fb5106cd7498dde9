#include "compile/header_fingerprint.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "util/file_util.h"
#include "util/fnv1a.h"

namespace hk {
namespace fs = std::filesystem;
namespace {

bool header_like(const fs::path& p) {
  static const char* kExt[] = {".h", ".hpp", ".hh", ".cuh", ".hip", ".inc", ".inl", ".cu", ".cpp", ".cc"};
  const std::string e = p.extension().string();
  return std::any_of(std::begin(kExt), std::end(kExt), [&](const char* x) { return e == x; });
}

}  // namespace

std::vector<fs::path> header_files(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && header_like(it->path())) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string fingerprint_folder(const std::string& dir) {
  const std::vector<fs::path> files = header_files(dir);
  // Names relative to the folder: the same headers in another clone of the project hash the same.
  std::string text;
  size_t bytes = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code e;
    const auto size = fs::file_size(files[i], e);
    text += files[i].lexically_relative(dir).string() + "\n";
    if (i < kMaxFingerprintFiles && !e && bytes + size <= kMaxFingerprintBytes) {
      bytes += size;
      try {
        text += fmt::format("{:016x}\n", fnv1a(read_file(files[i].string(), "header")));
        continue;
      } catch (const std::exception&) {  // unreadable: its size and time stand in
      }
    }
    const auto t = fs::last_write_time(files[i], e);
    text += fmt::format("{} {}\n", e ? 0 : size, e ? 0 : static_cast<long long>(t.time_since_epoch().count()));
  }
  return fmt::format("{:016x}", fnv1a(text));
}

}  // namespace hk
