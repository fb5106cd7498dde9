#include "file_util.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
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
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode.value_or(0644));
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

std::optional<mode_t> file_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st.st_mode & 07777;
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + what + " " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace hk
