#include "backends/host/host_prelude.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "platform/backend.h"
#include "backends/host/precompiled_header.h"
#include "compile/cache_seal.h"
#include "util/file_util.h"
#include "util/fnv1a.h"

namespace hk::host {
namespace fs = std::filesystem;
namespace {

// Writes the prelude beside root and renames it into place: a concurrent run never sees half of it.
bool place_prelude(const std::string& root) {
  const std::string tmp = temporary_beside(root);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  write_prelude(tmp + "/include");
  fs::rename(tmp, root, ec);
  if (ec) fs::remove_all(tmp, ec);  // another process placed it first
  return fs::exists(root + "/include/hk_host.h");
}

// A prelude folder found in the cache holds exactly the prelude: a file edited or truncated there
// is written again (and noted), and the precompiled header made from it is removed.
bool prelude_intact(const std::string& root) {
  bool repaired = false;
  for (const auto& [name, text] : prelude_headers("host")) {
    std::string note;
    if (!restore_cached_text((fs::path(root) / "include" / name).string(), text, &note)) return false;
    if (!note.empty()) note_cache_repair(note);
    repaired |= !note.empty();
  }
  if (repaired) remove_sealed(root + "/include/hk_host.h.gch");
  return true;
}

}  // namespace

void write_prelude(const std::string& folder) {
  for (const auto& [name, text] : prelude_headers("host")) {
    const fs::path path = fs::path(folder) / name;
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
  }
}

std::string cached_prelude_folder(const CompilerInfo& cxx, const std::vector<std::string>& base_flags, const std::string& cache_dir) {
  if (cache_dir.empty()) return "";
  std::string key = cxx.path + "\n" + cxx.version + "\n";
  for (const std::string& f : base_flags) key += f + "\n";
  for (const auto& [name, text] : prelude_headers("host")) key += name + "\n" + text + "\n";
  const std::string root = fmt::format("{}/host-prelude/{:016x}", cache_dir, fnv1a(key));
  static std::mutex mu;  // a worker's threads make it once
  static std::map<std::string, std::string> made;
  std::lock_guard<std::mutex> lock(mu);
  if (const auto it = made.find(root); it != made.end()) return it->second;
  std::string include;
  try {
    fs::create_directories(fs::path(root).parent_path());
    if (fs::exists(root + "/include/hk_host.h") ? prelude_intact(root) : place_prelude(root)) include = root + "/include";
    if (!include.empty()) precompile_header(cxx, base_flags, include + "/hk_host.h");
  } catch (const std::exception&) {
    include.clear();  // no cache folder: each compile writes the prelude (compile_shared_library)
  }
  made[root] = include;
  return include;
}

}  // namespace hk::host
