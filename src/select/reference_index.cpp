#include "select/reference_index.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>

#include "util/file_util.h"

#ifndef HKCHECK_SOURCE_REFERENCES
#define HKCHECK_SOURCE_REFERENCES "references"
#endif

namespace hk {
namespace fs = std::filesystem;

std::vector<std::string> reference_names_in(const std::string& source) {
  std::vector<std::string> names;
  const std::string kMacro = "HK_REFERENCE(";
  for (size_t i = 0; i < source.size(); ++i) {
    if (source.compare(i, 2, "//") == 0) {
      i = source.find('\n', i);
      if (i == std::string::npos) break;
    } else if (source.compare(i, 2, "/*") == 0) {
      i = source.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else if (source.compare(i, kMacro.size(), kMacro) == 0 && (i == 0 || !(std::isalnum((unsigned char)source[i - 1]) || source[i - 1] == '_'))) {
      const size_t start = i + kMacro.size(), end = source.find(')', start);
      if (end == std::string::npos) break;
      std::string name = source.substr(start, end - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty() && name != "name") names.push_back(name);  // "name": the macro's own definition
      i = end;
    }
  }
  return names;
}

ReferenceIndex scan_references(const std::vector<std::string>& folders, const std::vector<std::string>& files, const std::string& builtin) {
  ReferenceIndex idx;
  std::error_code builtin_ec;
  const std::string builtin_canonical = builtin.empty() ? "" : fs::weakly_canonical(builtin, builtin_ec).string();
  const auto is_builtin = [&](const std::string& file) { return !builtin_canonical.empty() && fs::path(file).parent_path() == builtin_canonical; };
  std::vector<std::string> sources;
  for (const std::string& dir : folders) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    const std::string canonical = fs::weakly_canonical(dir, ec).string();
    if (std::find(idx.searched.begin(), idx.searched.end(), canonical) != idx.searched.end()) continue;
    idx.searched.push_back(canonical);
    std::vector<std::string> here;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".cpp" && it->path().filename() != "reference_context.cpp") here.push_back(fs::weakly_canonical(it->path(), ec).string());
    std::sort(here.begin(), here.end());
    sources.insert(sources.end(), here.begin(), here.end());
  }
  for (const std::string& f : files) {
    std::error_code ec;
    const std::string canonical = fs::weakly_canonical(f, ec).string();
    if (std::find(sources.begin(), sources.end(), canonical) != sources.end()) continue;
    idx.searched.push_back(canonical);
    sources.push_back(canonical);
  }
  for (const std::string& file : sources) {
    std::string text;
    try {
      text = read_file(file, "reference source");
    } catch (const std::exception& e) {
      idx.errors.push_back(e.what());
      continue;
    }
    for (const std::string& name : reference_names_in(text)) {
      const auto [it, fresh] = idx.file_of.emplace(name, file);
      if (fresh || it->second == file) continue;
      if (is_builtin(it->second) && !is_builtin(file)) {
        idx.notes[name] = fmt::format("reference '{}' is the project's, from {}: it overrides the built-in one of {}", name, file, it->second);
        it->second = file;
      } else {
        idx.errors.push_back(fmt::format("reference '{}' is defined in {} and again in {}", name, it->second, file));
      }
    }
  }
  return idx;
}

std::string builtin_references_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "hkcheck" / "references";
    if (fs::exists(installed / "reference.h", ec)) return installed.string();
  }
  return HKCHECK_SOURCE_REFERENCES;
}

bool holds_reference_runtime(const std::string& folder) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(folder) / "reference.h", ec) && fs::is_regular_file(fs::path(folder) / "reference_context.cpp", ec);
}

}  // namespace hk
