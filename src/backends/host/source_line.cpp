#include "backends/host/source_line.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

extern char** environ;

namespace hk::host {

std::string source_line(const void* code) {
  Dl_info info{};
  if (!code || !dladdr(code, &info) || !info.dli_fname) return "";
  // Kernel libraries are loaded from /proc/self/fd/N (host_backend.cpp): addr2line gets that
  // descriptor at the same number, so the same path names the library there.
  int fd = -1;
  if (std::sscanf(info.dli_fname, "/proc/self/fd/%d", &fd) != 1 || fd < 0) return "";
  // A return address: the call ends just before it.
  const uintptr_t offset = reinterpret_cast<uintptr_t>(code) - reinterpret_cast<uintptr_t>(info.dli_fbase) - 1;
  int out[2];
  if (pipe(out) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fd, fd);  // clears close-on-exec
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const std::string library = info.dli_fname, address = fmt::format("{:#x}", offset);
  char* argv[] = {const_cast<char*>("addr2line"), const_cast<char*>("-e"), const_cast<char*>(library.c_str()), const_cast<char*>(address.c_str()),
                  nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; spawned == 0 && (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  text = text.substr(0, text.find('\n'));
  if (const size_t disc = text.find(" (discriminator"); disc != std::string::npos) text.erase(disc);
  if (text.empty() || text[0] == '?' || text.find(":0") == text.size() - 2) return "";
  return text;
}

}  // namespace hk::host
