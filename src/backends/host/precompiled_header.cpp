#include "backends/host/precompiled_header.h"

#include <filesystem>
#include <fmt/format.h>

#include "compile/cache_seal.h"

namespace hk::host {
namespace fs = std::filesystem;

bool precompile_header(const CompilerInfo& cxx, const std::vector<std::string>& flags, const std::string& header, const CommandBounds& bounds) {
  const std::string gch = header + ".gch";
  CacheEntryLock lock(gch);
  std::error_code ec;
  if (fs::exists(gch, ec) || fs::exists(seal_path(gch), ec)) {
    const std::string why = seal_mismatch(gch);
    if (why.empty()) return true;
    note_cache_repair(fmt::format("the cached precompiled header {} was damaged ({}): it was made again", gch, why));
    remove_sealed(gch);
  }
  if (is_clang(cxx)) return false;
  std::vector<std::string> argv = {cxx.path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-x", "c++-header", header});
  run_command_into(argv, gch, bounds, [&](const std::string& tmp, std::string* why) { return write_seal(tmp, gch, why); });
  return seal_mismatch(gch).empty();
}

}  // namespace hk::host
