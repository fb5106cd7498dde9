// hkcheck may run as root (a CI container). The compilers it starts (host-backend kernels,
// reference libraries, the precompiled prelude) then run as an unprivileged user of their own, so
// that a kernel file or a reference cannot read root's files into a compile log (an #include of
// /root/.ssh/id_rsa) nor write where root may. It is not the kernels' user either: a kernel cannot
// touch a compile's folder. The compile user reads what any user may read; hkcheck's own folders
// (the compile's, the cached prelude) and the project's include folders are reached through
// descriptors root opened, so a project under /root (mode 0700) still compiles.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hk::host {

inline constexpr unsigned kCompileUserId = 65533;

// Whether compiles leave root: hkcheck runs as root.
bool compiles_unprivileged();

// What one command may reach as the compile user. Without root it changes nothing.
class CompileAccess {
 public:
  CompileAccess() = default;
  // stage: a folder already the compile user's (give_to_compile_user), where reach links files.
  explicit CompileAccess(std::string stage) : stage_(std::move(stage)) {}
  CompileAccess(const CompileAccess&) = delete;
  CompileAccess& operator=(const CompileAccess&) = delete;
  ~CompileAccess();

  // path (a folder, or a file in one) spelled so that the compile user reaches it: as it is when
  // every folder above lets others pass, else through /proc/self/fd/N, a descriptor of its folder
  // that the command inherits; a file of a folder the compile user may not search at all (the
  // private cache) is linked into the stage. A path that does not exist is returned as it is.
  std::string reach(const std::string& path);
  // argv with each absolute path and each include option's folder spelled by reach.
  std::vector<std::string> reach_all(const std::vector<std::string>& argv);
  // The compiler's messages with each /proc/self/fd/N spelled as the folder it stands for.
  std::string paths_in(std::string log) const;
  const std::vector<int>& descriptors() const { return fds_; }

 private:
  std::string staged(const std::filesystem::path& file);

  std::map<std::string, std::string> spelled_;        // folder -> /proc/self/fd/N
  std::map<std::string, std::string> spelled_files_;  // file -> its link in the stage
  std::vector<int> fds_;
  std::string stage_;
  int staged_ = 0;
};

// Whether the compile user may read file as CompileAccess bridges it: others may read it, and
// it lies in one of the compile's folders (its include folders, bridged however private) or in a
// folder others may search. True when hkcheck is not root. What hkcheck copies for a compile
// (header_mirror.h) is copied only then, so no copy opens a file to it.
bool compile_user_may_read(const std::string& file, const std::vector<std::string>& compile_folders);

// A folder a compiler writes into (its outputs, its temporary files), given to the compile user
// before anything is linked into it: a copy linked there across file systems would be given too.
void give_to_compile_user(const std::string& folder);

// While it lives, the calling thread opens files as the compile user: for the compilers that run
// inside hkcheck (NVRTC, hipRTC), in a process that stays root for the GPU. Linux keeps a
// file-system user per thread (setfsuid, which also drops root's file capabilities), and the
// supplementary groups are dropped for this thread alone; a thread the compile starts inherits
// both. Nothing changes without root. Throws when the thread could not leave root's files.
class FilesAsCompileUser {
 public:
  FilesAsCompileUser();
  FilesAsCompileUser(const FilesAsCompileUser&) = delete;
  FilesAsCompileUser& operator=(const FilesAsCompileUser&) = delete;
  ~FilesAsCompileUser();

 private:
  void restore();
  bool active_ = false;
  int dumpable_ = 1;
  std::vector<gid_t> groups_;
};

// A fresh folder the compile user owns, for a compile inside hkcheck (CompileAccess's stage),
// spelled so that user reaches it even under a private TMPDIR; removed with it. Under root only:
// otherwise path() is "".
class CompileStage {
 public:
  CompileStage();
  CompileStage(const CompileStage&) = delete;
  CompileStage& operator=(const CompileStage&) = delete;
  ~CompileStage();
  const std::string& path() const { return spelled_; }

 private:
  std::string real_, spelled_;
  int fd_ = -1;
};

// Whether the compile user may pass through every folder above path and through path itself.
bool compile_user_passes(const std::filesystem::path& path);

// "(hkcheck runs as root, so its compiles run as uid 65533: ...)" when log says a file could not
// be read for its permissions, else "".
std::string permission_hint(const std::string& log);

}  // namespace hk::host
