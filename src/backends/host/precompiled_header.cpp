#include "backends/host/precompiled_header.h"

#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <thread>

namespace hk::host {
namespace fs = std::filesystem;

bool can_precompile(const CompilerInfo& cxx) { return cxx.version.find("clang") == std::string::npos; }

bool precompile_header(const CompilerInfo& cxx, const std::vector<std::string>& flags, const std::string& header) {
  const std::string gch = header + ".gch";
  std::error_code ec;
  if (fs::exists(gch, ec)) return true;
  if (!can_precompile(cxx)) return false;
  const std::string tmp = fmt::format("{}.tmp-{}-{}", gch, getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  std::vector<std::string> argv = {cxx.path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-x", "c++-header", header, "-o", tmp});
  const CommandRun r = run_command(argv, tmp + ".log");
  fs::remove(tmp + ".log", ec);
  if (r.started && r.exit_code == 0) fs::rename(tmp, gch, ec);
  fs::remove(tmp, ec);
  return fs::exists(gch, ec);
}

}  // namespace hk::host
