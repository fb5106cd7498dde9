#include "backends/host/cxx_toolchain.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "platform/backend.h"
#include "process/compile_user.h"
#include "util/file_util.h"

namespace hk::host {
namespace fs = std::filesystem;
namespace {

constexpr double kVersionLimitSeconds = 60;

}  // namespace

// Each folder's name carries its process id; one whose process is dead is removed.
void remove_abandoned_compile_folders() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("hkcheck-host-", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 13, nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
}

CompileFolder::CompileFolder() {
  static const bool swept = (remove_abandoned_compile_folders(), true);  // once per process
  (void)swept;
  std::string tmpl = (fs::temp_directory_path() / fmt::format("hkcheck-host-{}-XXXXXX", getpid())).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error(fmt::format("cannot create a temporary folder: {}", std::strerror(errno)));
  path = tmpl;
}

CompileFolder::~CompileFolder() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

void write_whole_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

bool read_output(const std::string& path, std::string* bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  bytes->clear();
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) bytes->append(buf, static_cast<size_t>(n));
  close(fd);
  return n == 0;
}

CommandRun run_compiler(std::vector<std::string> argv, const std::string& log_path, const CommandBounds& bounds,
                        const std::string& folder) {
  std::optional<CompileFolder> stage;
  std::string work = folder, wanted;
  if (compiles_unprivileged() && work.empty()) {
    stage.emplace();
    give_to_compile_user(stage->path);
    work = stage->path;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-o") wanted = fs::absolute(std::exchange(argv[i + 1], work + "/output")).string();
  }
  CompileAccess access(work);
  const std::vector<std::string> reached = access.reach_all(argv);  // before access.descriptors() is read
  CommandRun r = run_bounded(reached, log_path, bounds, {access.descriptors(), work, true});
  r.output = access.paths_in(r.output);
  if (r.exit_code != 0) r.output += permission_hint(r.output);
  if (!wanted.empty() && r.started && r.exit_code == 0) {
    std::string bytes;
    if (!read_output(work + "/output", &bytes)) {
      r.exit_code = -1;
      r.output += "\nhkcheck: the compiler's output is missing or not a plain file";
    } else {
      write_whole_file(wanted, bytes);
      struct stat st {};
      if (stat((work + "/output").c_str(), &st) == 0) chmod(wanted.c_str(), st.st_mode & 0755);  // a library stays executable
    }
  }
  return r;
}

CommandRun run_command(const std::vector<std::string>& argv, const std::string& log_path, const CommandBounds& bounds) {
  return run_bounded(argv, log_path, bounds);
}

CommandRun run_command_into(std::vector<std::string> argv, const std::string& path, const CommandBounds& bounds, const BeforeRename& before_rename) {
  const std::string tmp = temporary_beside(path);
  argv.insert(argv.end(), {"-o", tmp});
  CommandRun r = run_compiler(argv, tmp + ".log", bounds);
  std::error_code ec;
  fs::remove(tmp + ".log", ec);
  std::string refused;
  if (r.started && r.exit_code == 0 && before_rename && !before_rename(tmp, &refused)) {
    r.exit_code = -1;
    r.output += refused;
  }
  if (r.started && r.exit_code == 0) {
    fs::rename(tmp, path, ec);
    if (!ec) return r;
    r.exit_code = -1;
    r.output += fmt::format("cannot move {} into place: {}", path, ec.message());
  }
  fs::remove(tmp, ec);
  return r;
}

bool is_clang(const CompilerInfo& cxx) { return cxx.version.find("clang") != std::string::npos; }

namespace {
CommandRun version_of(const std::string& path, const CompileFolder& dir) {
  return run_bounded({path, "--version"}, dir.path + "/version.txt", kVersionLimitSeconds);
}

// The newest clang++-N on PATH, else clang++: tile libraries are C++20 as clang 17 reads it
// (typename-less dependent types, a discarded static_assert(false)) and use __bf16 vectors.
std::string newest_clang() {
  std::string best = "clang++";
  int best_version = -1;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("clang++-", 0) != 0 || name.size() == 8 || name.find_first_not_of("0123456789", 8) != std::string::npos) continue;
      const int v = std::stoi(name.substr(8));
      if (v > best_version) best_version = v, best = name;
    }
  }
  return best;
}
}  // namespace

CompilerInfo find_compiler(bool prefer_clang) {
  CompilerInfo c;
  CompileFolder dir;
  if (const char* p = std::getenv("HKCHECK_HOST_CXX"); p && *p) c.path = p;
  // HIP is clang's dialect (ext_vector_type, __fp16 vectors), which AMD tile libraries use.
  else if (const std::string clang = prefer_clang ? newest_clang() : "";
           !clang.empty() && [&] { const CommandRun r = version_of(clang, dir); return r.started && r.exit_code == 0; }())
    c.path = clang;
  else if (const char* p = std::getenv("CXX"); p && *p) c.path = p;
  else c.path = "c++";
  const CommandRun r = version_of(c.path, dir);
  if (!r.started || r.exit_code != 0)
    throw BackendUnavailable(fmt::format("the host backend needs a C++ compiler: {} (set HKCHECK_HOST_CXX or CXX)",
                                         r.started ? fmt::format("'{} --version' exited with {}", c.path, r.exit_code) : r.output));
  c.version = r.output.substr(0, r.output.find('\n'));
  return c;
}

}  // namespace hk::host
