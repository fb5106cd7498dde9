#include "process/private_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

namespace hk {

void ensure_private_folder(const std::string& path, const std::string& what, bool follow_link) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error(fmt::format("{} {}: cannot create it: {}", what, path, std::strerror(errno)));
  struct stat st {};
  if ((follow_link ? stat(path.c_str(), &st) : lstat(path.c_str(), &st)) != 0)
    throw std::runtime_error(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
  if (!S_ISDIR(st.st_mode))
    throw UntrustedFolder(fmt::format("{} {}: not a folder{} (hkcheck keeps compiled code there)", what, path,
                                         S_ISLNK(st.st_mode) ? " but a link, which another user may have planted" : ""));
  if (st.st_uid != geteuid())
    throw UntrustedFolder(fmt::format("{} {}: owned by uid {}, not by this user (uid {}): code kept there could be another user's. "
                                         "Remove it, or name a folder of your own",
                                         what, path, st.st_uid, geteuid()));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw UntrustedFolder(fmt::format("{} {}: its group or others can write to it (mode {:04o}), so code kept there could be "
                                         "another user's: chmod go-w {}",
                                         what, path, st.st_mode & 07777, path));
}

}  // namespace hk
