#include "backends/host/compile_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fmt/format.h>

namespace hk::host {
namespace fs = std::filesystem;

namespace {

// Whether others may pass through every folder above path and through path itself.
bool others_pass(const fs::path& path) {
  fs::path walked;
  for (const fs::path& part : path) {
    walked /= part;
    struct stat st {};
    if (stat(walked.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
  }
  return true;
}

const std::vector<std::string>& include_options() {
  static const std::vector<std::string> names = {"-I", "-isystem", "-iquote", "-idirafter", "-include", "-L"};
  return names;
}

}  // namespace

bool compiles_unprivileged() { return geteuid() == 0; }

bool compile_user_may_read(const std::string& file) {
  if (!compiles_unprivileged()) return true;
  struct stat f {}, d {};
  const fs::path p = fs::absolute(file).lexically_normal();
  return stat(p.c_str(), &f) == 0 && (f.st_mode & S_IROTH) && stat(p.parent_path().c_str(), &d) == 0 && (d.st_mode & S_IXOTH);
}

CompileAccess::~CompileAccess() {
  for (int fd : fds_) close(fd);
}

std::string CompileAccess::reach(const std::string& path) {
  if (!compiles_unprivileged() || path.empty()) return path;
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  if (ec || !fs::exists(p, ec)) return path;
  const bool folder = fs::is_directory(p, ec);
  const fs::path dir = folder ? p : p.parent_path();
  if (others_pass(dir)) return path;
  struct stat st {};
  if (!folder && stat(dir.c_str(), &st) == 0 && !(st.st_mode & S_IXOTH) && !stage_.empty()) return staged(p);
  auto it = spelled_.find(dir.string());
  if (it == spelled_.end()) {
    const int fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return path;  // the compiler says what it cannot open
    fds_.push_back(fd);
    it = spelled_.emplace(dir.string(), fmt::format("/proc/self/fd/{}", fd)).first;
  }
  return folder ? it->second : it->second + "/" + p.filename().string();
}

std::vector<std::string> CompileAccess::reach_all(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    std::string attached;
    for (const std::string& o : include_options())
      if (a.size() > o.size() && a.rfind(o, 0) == 0) attached = o;
    if (!attached.empty()) out.push_back(attached + reach(a.substr(attached.size())));
    else if (i > 0 && (a.rfind('/', 0) == 0 || std::find(include_options().begin(), include_options().end(), argv[i - 1]) != include_options().end()))
      out.push_back(reach(a));
    else out.push_back(a);
  }
  return out;
}

// A file of a folder only root may search (hkcheck's private cache): linked into the stage, with
// its precompiled header beside it, since a descriptor of the folder would not open it.
std::string CompileAccess::staged(const fs::path& file) {
  std::error_code ec;
  const fs::path to = fs::path(stage_) / fmt::format("reached-{}", staged_++) / file.filename();
  fs::create_directories(to.parent_path(), ec);
  (void)!lchown(to.parent_path().c_str(), kCompileUserId, kCompileUserId);
  for (const std::string& suffix : {std::string(), std::string(".gch")}) {
    const fs::path from = file.string() + suffix;
    if (!fs::exists(from, ec)) continue;
    fs::create_hard_link(from, to.string() + suffix, ec);
    if (ec) fs::copy_file(from, to.string() + suffix, fs::copy_options::overwrite_existing, ec);
  }
  spelled_files_.emplace(file.string(), to.string());
  return to.string();
}

void CompileAccess::give(const std::string& folder) {
  if (!compiles_unprivileged()) return;
  if (stage_.empty()) stage_ = folder;
  std::error_code ec;
  // Never a file linked from elsewhere (staged): its owner is the cache's.
  auto own = [](const fs::path& p) {
    struct stat st {};
    if (lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) return;
    (void)!lchown(p.c_str(), kCompileUserId, kCompileUserId);
  };
  own(folder);
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    own(it->path());
}

std::string CompileAccess::paths_in(std::string log) const {
  for (const auto& [file, spelled] : spelled_files_)
    for (size_t at = 0; (at = log.find(spelled, at)) != std::string::npos; at += file.size()) log.replace(at, spelled.size(), file);
  for (const auto& [folder, spelled] : spelled_)
    for (size_t at = 0; (at = log.find(spelled, at)) != std::string::npos;) {
      const size_t end = at + spelled.size();
      if (end < log.size() && std::isdigit(static_cast<unsigned char>(log[end]))) {  // /proc/self/fd/1 in /proc/self/fd/12
        at = end;
        continue;
      }
      log.replace(at, spelled.size(), folder);
      at += folder.size();
    }
  return log;
}

std::string permission_hint(const std::string& log) {
  if (!compiles_unprivileged() || log.find("Permission denied") == std::string::npos) return "";
  return fmt::format(
      "(hkcheck: hkcheck runs as root, so its compiles run as uid {}, which may read only what every user may: make "
      "the file readable by others (chmod o+r), or run hkcheck as a user)",
      kCompileUserId);
}

}  // namespace hk::host
