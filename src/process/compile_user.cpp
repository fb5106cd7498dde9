#include "process/compile_user.h"

#include <fcntl.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <filesystem>
#include <fmt/format.h>

namespace hk::host {
namespace fs = std::filesystem;

namespace {

// Whether the compile user may search a folder: its own (the compile's folder), or one others may.
bool compile_user_searches(const struct stat& st) {
  return st.st_uid == kCompileUserId ? (st.st_mode & S_IXUSR) != 0 : (st.st_mode & S_IXOTH) != 0;
}

const std::vector<std::string>& include_options() {
  static const std::vector<std::string> names = {"-I", "-isystem", "-iquote", "-idirafter", "-include", "-L"};
  return names;
}

}  // namespace

bool compile_user_passes(const fs::path& path) {
  fs::path walked;
  for (const fs::path& part : path) {
    walked /= part;
    struct stat st {};
    if (stat(walked.c_str(), &st) != 0 || !compile_user_searches(st)) return false;
  }
  return true;
}

bool compiles_unprivileged() { return geteuid() == 0; }

// setfsuid answers the file-system user it had, and an id it refuses (-1) changes nothing: asked
// twice, it says which user the thread now is. setgroups goes straight to the kernel, where it is
// the thread's own (the C library's setgroups would change every thread).
FilesAsCompileUser::FilesAsCompileUser() {
  if (!compiles_unprivileged()) return;
  const int n = getgroups(0, nullptr);
  groups_.resize(static_cast<size_t>(std::max(n, 0)));
  if (n > 0 && getgroups(n, groups_.data()) != n) throw std::runtime_error("hkcheck: getgroups failed");
  dumpable_ = prctl(PR_GET_DUMPABLE);
  if (syscall(SYS_setgroups, 0, nullptr) != 0)
    throw std::runtime_error(fmt::format("hkcheck: a compile could not drop root's groups: {}", std::strerror(errno)));
  active_ = true;
  setfsgid(kCompileUserId);
  setfsuid(kCompileUserId);
  if (static_cast<unsigned>(setfsuid(static_cast<uid_t>(-1))) != kCompileUserId ||
      static_cast<unsigned>(setfsgid(static_cast<gid_t>(-1))) != kCompileUserId) {
    restore();
    throw std::runtime_error(fmt::format("hkcheck: a compile could not read files as uid {}", kCompileUserId));
  }
}

FilesAsCompileUser::~FilesAsCompileUser() { restore(); }

void FilesAsCompileUser::restore() {
  if (!std::exchange(active_, false)) return;
  setfsuid(0);
  setfsgid(0);
  (void)!syscall(SYS_setgroups, groups_.size(), groups_.data());
  // A change of file-system user made the process undumpable (no core, no debugger): as before.
  prctl(PR_SET_DUMPABLE, dumpable_);
}

CompileStage::CompileStage() {
  if (!compiles_unprivileged()) return;
  std::error_code ec;
  fs::path parent = fs::temp_directory_path(ec);
  if (ec) parent = "/tmp";
  std::string tmpl = (parent / fmt::format("hkcheck-rtc-{}-XXXXXX", getpid())).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error(fmt::format("hkcheck: cannot create a compile folder in {}: {}", parent.string(), std::strerror(errno)));
  real_ = spelled_ = tmpl;
  give_to_compile_user(real_);
  if (compile_user_passes(parent)) return;
  // A TMPDIR only root may pass: the compile reaches its folder through a descriptor.
  fd_ = open(real_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd_ >= 0) spelled_ = fmt::format("/proc/self/fd/{}", fd_);
}

CompileStage::~CompileStage() {
  if (fd_ >= 0) close(fd_);
  std::error_code ec;
  if (!real_.empty()) fs::remove_all(real_, ec);
}

bool compile_user_may_read(const std::string& file, const std::vector<std::string>& compile_folders) {
  if (!compiles_unprivileged()) return true;
  struct stat f {}, d {};
  const fs::path p = fs::absolute(file).lexically_normal();
  if (stat(p.c_str(), &f) != 0 || !(f.st_mode & S_IROTH)) return false;
  for (const std::string& folder : compile_folders)
    if (p.string().rfind(folder + "/", 0) == 0) return true;
  return stat(p.parent_path().c_str(), &d) == 0 && compile_user_searches(d);
}

CompileAccess::~CompileAccess() {
  for (int fd : fds_) close(fd);
}

namespace {

// The shallowest folder above dir (or dir) from which the compile user passes down to dir. dir is
// spelled through a descriptor of it, so that an include's "../x" means the same up to there
// whether the compiler resolves it through the file system (g++) or by its spelling (NVRTC and
// comgr turn "/proc/self/fd/5/../x" into "/proc/self/fd/x").
fs::path reach_anchor(const fs::path& dir) {
  fs::path walked, anchor;
  for (const fs::path& part : dir) {
    walked /= part;
    struct stat st {};
    if (stat(walked.c_str(), &st) != 0) return dir;
    if (!compile_user_searches(st)) anchor.clear();
    else if (anchor.empty()) anchor = walked;
  }
  return anchor.empty() ? dir : anchor;
}

}  // namespace

std::string CompileAccess::reach(const std::string& path) {
  if (!compiles_unprivileged() || path.empty()) return path;
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  if (ec || !fs::exists(p, ec)) return path;
  const bool folder = fs::is_directory(p, ec);
  const fs::path dir = folder ? p : p.parent_path();
  if (compile_user_passes(dir)) return path;
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0 && !compile_user_searches(st) && !stage_.empty()) return staged(p);
  const fs::path anchor = reach_anchor(dir);
  auto it = spelled_.find(anchor.string());
  if (it == spelled_.end()) {
    const int fd = open(anchor.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return path;  // the compiler says what it cannot open
    fds_.push_back(fd);
    it = spelled_.emplace(anchor.string(), fmt::format("/proc/self/fd/{}", fd)).first;
  }
  const std::string below = dir == anchor ? "" : "/" + dir.lexically_relative(anchor).string();
  return it->second + below + (folder ? "" : "/" + p.filename().string());
}

// The command works in a folder of its own under root: a path relative to hkcheck's (an input
// file, an include folder) is made absolute first. The word after -x is a language, never a path.
std::vector<std::string> CompileAccess::reach_all(const std::vector<std::string>& argv) {
  if (!compiles_unprivileged()) return argv;
  std::vector<std::string> out;
  std::error_code ec;
  auto absolute = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : fs::absolute(p, ec).lexically_normal().string(); };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string before = i > 0 ? argv[i - 1] : "";
    std::string attached;
    for (const std::string& o : include_options())
      if (a.size() > o.size() && a.rfind(o, 0) == 0) attached = o;
    const bool option_value = std::find(include_options().begin(), include_options().end(), before) != include_options().end();
    const std::string value = attached.empty() ? "" : a.substr(attached.size());
    if (!attached.empty()) out.push_back(attached + (fs::exists(value, ec) ? reach(absolute(value)) : value));
    else if (i == 0 || before == "-x" || (a.rfind('-', 0) == 0 && !option_value)) out.push_back(a);
    else if (before == "-o") out.push_back(absolute(a));
    else if (a[0] == '/' || fs::exists(a, ec)) out.push_back(reach(absolute(a)));
    else out.push_back(a);  // a name the compiler looks for along the include path (-include hk_host.h)
  }
  return out;
}

namespace {

// from at to: a hard link (a copy across file systems), which keeps from's owner and mode, so
// that a file only root may read stays so.
void link_or_copy(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_hard_link(from, to, ec);
  if (ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
}

constexpr int kMostStagedFiles = 4096;  // a folder past it is left to the compiler's "Permission denied"

}  // namespace

// A folder only root may search (hkcheck's private cache, a project folder of mode 0700), or a
// file of one: a descriptor of it would not open it for the compile user, so it is linked into
// the stage, a file with its precompiled header beside it, a folder file by file.
std::string CompileAccess::staged(const fs::path& path) {
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  const std::string key = path.string();
  if (const auto it = spelled_files_.find(key); it != spelled_files_.end()) return it->second;
  const fs::path to = fs::path(stage_) / fmt::format("reached-{}", staged_++) / path.filename();
  fs::create_directories(folder ? to : to.parent_path(), ec);
  if (!folder) {
    for (const std::string& suffix : {std::string(), std::string(".gch")})
      if (fs::exists(path.string() + suffix, ec)) link_or_copy(path.string() + suffix, to.string() + suffix);
  } else {
    int files = 0;
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (++files > kMostStagedFiles) return key;
      const fs::path rel = fs::relative(it->path(), path, ec);
      if (it->is_directory(ec)) fs::create_directories(to / rel, ec);
      else if (it->is_regular_file(ec)) link_or_copy(it->path(), to / rel);
    }
  }
  spelled_files_.emplace(key, to.string());
  return to.string();
}

void give_to_compile_user(const std::string& folder) {
  if (!compiles_unprivileged()) return;
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
