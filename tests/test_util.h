// Helpers for tests that need files: a fresh temporary folder per test.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace hk::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hkcheck_test_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_; }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p) << content;
    return p;
  }

 private:
  std::string path_;
};

// A file's bytes, or "" when it cannot be read.
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A process that has exited and been reaped, or is a zombie waiting for its new parent.
inline bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

// Whether pid is gone within ms milliseconds: a kill, PDEATHSIG and a reaping are asynchronous.
inline bool gone_within(pid_t pid, int ms) {
  for (int i = 0; i < ms / 10; ++i, usleep(10000))
    if (process_gone(pid)) return true;
  return process_gone(pid);
}

}  // namespace hk::test
