#include "process/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>

namespace hk {
namespace {

std::atomic<unsigned long long> g_dropped{0};
std::atomic<bool> g_status_line{false};

// A stream's write: all of buf to the descriptor, or what the descriptor takes before it fails;
// the rest is dropped and counted. Always "written", so stdio and fmt never see an error.
ssize_t write_all_or_drop(void* cookie, const char* buf, size_t size) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(cookie));
  // A message while the status line is shown goes on a cleared line (the status line redraws
  // itself with "\r\033[K" first).
  if (fd == STDERR_FILENO && size > 0 && buf[0] != '\r' && g_status_line.exchange(false)) (void)!::write(fd, "\r\033[K", 4);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, buf + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      g_dropped += size - done;
      break;
    }
  }
  return static_cast<ssize_t>(size);
}

FILE* never_failing_stream(int fd, int buffering) {
  cookie_io_functions_t io{};
  io.write = write_all_or_drop;
  FILE* f = fopencookie(reinterpret_cast<void*>(static_cast<intptr_t>(fd)), "w", io);
  if (f) setvbuf(f, nullptr, buffering, BUFSIZ);
  return f;
}

}  // namespace

void keep_standard_streams_writable() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int null_fd = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {
      dup2(null_fd, fd);
      ::close(null_fd);
    }
  }
  std::signal(SIGPIPE, SIG_IGN);
  fflush(stdout);
  // stderr unbuffered as before; stdout line by line on a terminal, else in blocks, as stdio does.
  if (FILE* err = never_failing_stream(STDERR_FILENO, _IONBF)) stderr = err;
  if (FILE* out = never_failing_stream(STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF)) stdout = out;
}

void status_line_shown(bool shown) { g_status_line = shown; }

unsigned long long dropped_output_bytes() { return g_dropped.load(); }

}  // namespace hk
