#include "backends/host/precompiled_header.h"

#include <filesystem>

namespace hk::host {
namespace fs = std::filesystem;

bool precompile_header(const CompilerInfo& cxx, const std::vector<std::string>& flags, const std::string& header) {
  const std::string gch = header + ".gch";
  std::error_code ec;
  if (fs::exists(gch, ec)) return true;
  if (is_clang(cxx)) return false;
  std::vector<std::string> argv = {cxx.path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-x", "c++-header", header});
  run_command_into(argv, gch);
  return fs::exists(gch, ec);
}

}  // namespace hk::host
