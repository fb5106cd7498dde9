#include "util/file_util.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hk {

std::string temporary_beside(const std::string& path) {
  return path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

bool write_file_atomic(const std::string& path, const std::string& content, std::string* err, std::optional<mode_t> mode) {
  const std::string tmp = temporary_beside(path);
  auto fail = [&](const char* what) {
    if (err) *err = std::string(what) + " " + tmp + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  };
  ::unlink(tmp.c_str());  // a stale one, or a link planted at the name: O_EXCL would refuse it
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode.value_or(0644));
  if (fd < 0) return fail("cannot create");
  if (mode && ::fchmod(fd, *mode) != 0) {  // exactly the source's, whatever the umask
    ::close(fd);
    return fail("cannot set the mode of");
  }
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return fail("cannot write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) return fail("cannot flush");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename");
  return true;
}

void write_file_atomic_or_throw(const std::string& path, const std::string& content, std::optional<mode_t> mode) {
  std::string err;
  if (!write_file_atomic(path, content, &err, mode)) throw std::runtime_error(err);
}

namespace {

// What is at path that a results file must not be opened through: a symbolic link (ELOOP), a
// FIFO, socket or device (opened with O_NONBLOCK, so a FIFO with no reader fails at once instead
// of hanging), or a hard link to a file elsewhere (more than one name). "" when path is none of
// these: fd is then the file, opened blocking again.
std::string planted_at(const std::string& path, int* fd) {
  struct stat st {};
  if (*fd < 0) {
    if (errno != ELOOP && errno != ENXIO) return "";
    if (::lstat(path.c_str(), &st) != 0) return "";
    if (S_ISLNK(st.st_mode)) {
      char target[4096] = {};
      const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
      return "a symbolic link (to " + std::string(target, n > 0 ? static_cast<size_t>(n) : 0) + ")";
    }
    return S_ISFIFO(st.st_mode) ? "a FIFO" : "";
  }
  if (::fstat(*fd, &st) != 0) return "";
  std::string what;
  if (!S_ISREG(st.st_mode)) what = S_ISFIFO(st.st_mode) ? "a FIFO" : "not a plain file";
  else if (st.st_nlink > 1) what = fmt::format("a hard link ({} names for one file)", st.st_nlink);
  if (what.empty()) {
    ::fcntl(*fd, F_SETFL, ::fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
    return "";
  }
  ::close(*fd);
  *fd = -1;
  return what;
}

}  // namespace

int open_no_follow(const std::string& path, int flags, mode_t mode, bool replace_link, std::string* note) {
  // O_TRUNC waits for the check: it would empty the file a hard link names elsewhere.
  int fd = ::open(path.c_str(), (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK, mode);
  const std::string planted = planted_at(path, &fd);
  if (planted.empty()) {
    if (fd >= 0 && (flags & O_TRUNC) && ::ftruncate(fd, 0) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }
  if (!replace_link) {
    errno = ELOOP;
    return -1;
  }
  if (::unlink(path.c_str()) != 0) return -1;
  if (note) *note = path + " was " + planted + "; removed it, not followed";
  // Made anew: nobody can have put another name or a link there in between unseen.
  return ::open(path.c_str(), flags | O_NOFOLLOW | O_CREAT | O_EXCL, mode);
}

std::optional<mode_t> file_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st.st_mode & 07777;
}

namespace {

namespace fs = std::filesystem;

// Each component of rel below root (but the last unless last_too), made a real folder (a link in
// the way removed first); with create false, one that is missing ends the walk (*missing set).
bool make_parents(const fs::path& root, const fs::path& rel, bool last_too, bool create, bool* missing, std::string* err,
                  std::vector<std::string>* replaced) {
  fs::path at = root;
  const auto end = last_too ? rel.end() : std::prev(rel.end());
  for (auto part = rel.begin(); part != end; ++part) {
    if (part->empty() || *part == "." || *part == "..") {
      *err = "not a path inside the folder: " + rel.string();
      return false;
    }
    at /= *part;
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(at, ec);
    if (fs::is_symlink(st)) {
      const std::string target = fs::read_symlink(at, ec).string();
      if (!fs::remove(at, ec) || ec) {
        *err = "cannot remove the symbolic link " + at.string() + ": " + ec.message();
        return false;
      }
      if (replaced) replaced->push_back(at.string() + " was a symbolic link (to " + target + "); removed it, not followed");
    } else if (fs::is_directory(st)) {
      continue;
    } else if (fs::exists(st)) {
      *err = at.string() + " is in the way of a folder (not a folder); left as it is";
      return false;
    }
    if (!create) {
      *missing = true;
      return true;
    }
    if (!fs::create_directory(at, ec) && ec) {
      *err = "cannot create " + at.string() + ": " + ec.message();
      return false;
    }
    if (fs::is_symlink(fs::symlink_status(at, ec))) {  // raced in between: give up rather than follow
      *err = at.string() + " became a symbolic link while it was made";
      return false;
    }
  }
  return true;
}

}  // namespace

bool make_folder_inside(const std::string& root, const std::string& rel, std::string* err, std::vector<std::string>* replaced) {
  bool missing = false;
  return make_parents(root, fs::path(rel).lexically_normal(), true, true, &missing, err, replaced);
}

bool remove_inside(const std::string& root, const std::string& rel, std::string* err, std::vector<std::string>* replaced) {
  const fs::path r = fs::path(rel).lexically_normal();
  bool missing = false;
  if (r.empty() || !make_parents(root, r, false, false, &missing, err, replaced)) return false;
  if (missing) return true;  // its folder is not there: nor is it
  std::error_code ec;
  fs::remove_all(fs::path(root) / r, ec);  // a link is removed itself; links inside a folder too, never followed
  if (ec) *err = "cannot remove " + (fs::path(root) / r).string() + ": " + ec.message();
  return !ec;
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + what + " " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace hk
