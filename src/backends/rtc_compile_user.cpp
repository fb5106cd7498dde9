#include "backends/rtc_compile_user.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <utility>

#include "process/compile_user.h"
#include "compile/include_closure.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

// Each include folder or file that exists, spelled by access; the other options as they are (the
// allow-list lets no other option name a path).
std::vector<std::string> reached_options(host::CompileAccess& access, const std::vector<std::string>& options) {
  std::vector<std::string> out;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::optional<IncludeOption> opt = include_option_at(options, i);
    if (!opt) {
      out.push_back(options[i]);
      continue;
    }
    std::error_code ec;
    const bool exists = !opt->value.empty() && fs::exists(opt->value, ec);
    const std::string value = exists ? access.reach(fs::absolute(opt->value, ec).lexically_normal().string()) : opt->value;
    if (opt->strings == 2) {
      out.push_back(options[i]);
      out.push_back(value);
      ++i;
    } else {
      out.push_back(options[i].substr(0, options[i].size() - opt->value.size()) + value);
    }
  }
  return out;
}

// hipRTC's comgr writes its copies under TMPDIR, as the compile user now: a TMPDIR only root may
// pass is replaced by the compile's own folder while it compiles. A compile worker compiles on
// one thread, and no other thread of it reads TMPDIR meanwhile.
class TempDirFor {
 public:
  explicit TempDirFor(const std::string& stage) {
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    if (ec || host::compile_user_passes(tmp)) return;
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    replaced_ = setenv("TMPDIR", stage.c_str(), 1) == 0;
  }
  TempDirFor(const TempDirFor&) = delete;
  TempDirFor& operator=(const TempDirFor&) = delete;
  ~TempDirFor() {
    if (!replaced_) return;
    if (old_) setenv("TMPDIR", old_->c_str(), 1);
    else unsetenv("TMPDIR");
  }

 private:
  bool replaced_ = false;
  std::optional<std::string> old_;
};

// While it lives, the calling thread alone works in folder: the compiler asks for its working
// folder (LLVM stats "." and crashes when it may not), and hkcheck's may be root's alone (a
// project under /root). The thread's working folder is made its own once (unshare(CLONE_FS)), so
// the process's other threads keep theirs.
class ThreadWorkingFolder {
 public:
  explicit ThreadWorkingFolder(const std::string& folder) {
    thread_local const bool own = unshare(CLONE_FS) == 0;
    if (!own) throw std::runtime_error(fmt::format("hkcheck: a compile could not have a working folder of its own: {}", std::strerror(errno)));
    saved_ = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (chdir(folder.c_str()) != 0) {
      const int e = errno;
      restore();
      throw std::runtime_error(fmt::format("hkcheck: cannot work in {}: {}", folder, std::strerror(e)));
    }
  }
  ThreadWorkingFolder(const ThreadWorkingFolder&) = delete;
  ThreadWorkingFolder& operator=(const ThreadWorkingFolder&) = delete;
  ~ThreadWorkingFolder() { restore(); }

 private:
  void restore() {
    if (saved_ < 0) return;
    (void)!fchdir(saved_);
    close(std::exchange(saved_, -1));
  }
  int saved_ = -1;
};

}  // namespace

void prepare_comgr_cache_for_compile_user() {
  const char* dir = std::getenv("AMD_COMGR_CACHE_DIR");
  if (!host::compiles_unprivileged() || !dir || !*dir) return;
  std::error_code ec;
  const fs::path folder = fs::absolute(dir, ec).lexically_normal();
  if (ec) return;
  if (fs::create_directories(folder, ec)) fs::permissions(folder, fs::perms::owner_all, ec);  // one it makes is the compile user's alone
  if (ec || !fs::is_directory(folder, ec)) return;
  host::give_to_compile_user(folder.string());
  if (host::compile_user_passes(folder)) return;
  const int fd = open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);  // kept open: the process's compiles reach the folder through it
  if (fd >= 0) setenv("AMD_COMGR_CACHE_DIR", fmt::format("/proc/self/fd/{}", fd).c_str(), 1);
}

CompileOutput compile_as_compile_user(const std::vector<std::string>& base_options, const CompileRequest& q, const RtcCompileCall& compile) {
  if (!host::compiles_unprivileged()) return compile(base_options, q);
  host::CompileStage stage;
  host::CompileAccess access(stage.path());
  CompileRequest reached = q;
  reached.options = reached_options(access, q.options);
  const std::vector<std::string> base = reached_options(access, base_options);
  CompileOutput out;
  {
    TempDirFor temp(stage.path());
    ThreadWorkingFolder work(stage.path());
    host::FilesAsCompileUser as_compile_user;
    out = compile(base, reached);
  }
  out.log = access.paths_in(out.log);
  if (!out.ok) out.log += host::permission_hint(out.log);
  return out;
}

}  // namespace hk
