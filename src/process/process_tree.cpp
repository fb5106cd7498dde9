#include "process/process_tree.h"

#include <dirent.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace hk {
namespace {

// The children of every thread of pid (/proc/PID/task/TID/children), zombies included.
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  const std::string task = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(task.c_str());
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(task + "/" + e->d_name + "/children");
    for (long c; in >> c;) out.push_back(static_cast<pid_t>(c));
  }
  closedir(d);
  return out;
}

// The "Name:   123 kB" figure of /proc/PID/status, in bytes.
uint64_t status_kb(const std::string& text, const char* name) {
  const size_t at = text.find(name);
  if (at == std::string::npos) return 0;
  return std::strtoull(text.c_str() + at + std::char_traits<char>::length(name), nullptr, 10) * 1024;
}

// The inodes of the memfds that pid maps (/proc/PID/maps: address perms offset dev inode path).
void mapped_memfds(pid_t pid, std::set<unsigned long>& inodes) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(in, line);) {
    if (line.find("/memfd:") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string range, perms, offset, dev;
    unsigned long inode = 0;
    if (fields >> range >> perms >> offset >> dev >> inode) inodes.insert(inode);
  }
}

// Bytes allocated to the memfds the processes hold open and none of them maps, each file once.
uint64_t unmapped_memfd_bytes(const std::vector<pid_t>& pids) {
  std::set<unsigned long> mapped, counted;
  for (pid_t p : pids) mapped_memfds(p, mapped);
  uint64_t bytes = 0;
  for (pid_t p : pids) {
    const std::string fds = "/proc/" + std::to_string(p) + "/fd";
    DIR* d = opendir(fds.c_str());
    if (!d) continue;
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const std::string fd = fds + "/" + e->d_name;
      char target[256] = {};
      if (readlink(fd.c_str(), target, sizeof target - 1) <= 0 || std::strncmp(target, "/memfd:", 7) != 0) continue;
      struct stat st {};
      if (stat(fd.c_str(), &st) != 0 || mapped.count(st.st_ino) || !counted.insert(st.st_ino).second) continue;
      bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    }
    closedir(d);
  }
  return bytes;
}

}  // namespace

char state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() ? line[paren + 2] : 0;
}

std::vector<pid_t> descendants(pid_t root) {
  std::vector<pid_t> out;
  std::vector<pid_t> todo{root};
  // A bound against a cycle read across a pid's reuse.
  while (!todo.empty() && out.size() < 100000) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children_of(p)) {
      if (state_of(c) == 'Z' || state_of(c) == 0) continue;
      out.push_back(c);
      todo.push_back(c);
    }
  }
  return out;
}

int end_descendants(pid_t root, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  int killed = 0;
  for (;;) {
    const std::vector<pid_t> left = descendants(root);
    for (pid_t p : left)
      if (kill(p, SIGKILL) == 0) ++killed;
    if (root == getpid())
      while (waitpid(-1, nullptr, WNOHANG) > 0) {}
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) return killed;
    // The killed ones' children reach root (a subreaper) only once their parents have died.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

uint64_t tree_resident_bytes(pid_t root) {
  uint64_t total = 0;
  std::vector<pid_t> all = descendants(root);
  all.push_back(root);
  total += unmapped_memfd_bytes(all);
  for (pid_t p : all) {
    std::ifstream in("/proc/" + std::to_string(p) + "/status");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    total += status_kb(text, "RssAnon:") + status_kb(text, "RssShmem:");
  }
  return total;
}

}  // namespace hk
