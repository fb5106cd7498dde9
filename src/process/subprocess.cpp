#include "process/subprocess.h"

#include "process/process_tree.h"
#include "process/worker_environment.h"

#include <algorithm>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace hk {

std::string ExitStatus::describe() const {
  if (exited) return fmt::format("exit code {}", code);
  if (signaled) {
    const char* abbrev = sigabbrev_np(signal);
    return fmt::format("signal {} (SIG{}: {})", signal, abbrev ? abbrev : "?", strsignal(signal));
  }
  return "still running";
}

namespace {
void make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
}
}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv, int protocol_fd, const std::vector<std::string>& env) {
  int in[2], proto[2], out[2];
  make_pipe(in);
  make_pipe(proto);
  make_pipe(out);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  posix_spawn_file_actions_adddup2(&fa, proto[1], protocol_fd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> child_env = worker_environment(environ, env);  // never all of hkcheck's (worker_environment.h)
  std::vector<char*> envp;
  for (const auto& e : child_env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid_, argv[0].c_str(), &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(proto[1]);
  ::close(out[1]);
  stdin_fd_ = in[1];
  proto_fd_ = proto[0];
  out_fd_ = out[0];
  if (rc != 0) {
    pid_ = -1;
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(rc)));
  }
  signal(SIGPIPE, SIG_IGN);  // a dead child must not kill the parent through a write
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && !reaped_) {
    kill();
    wait();
  }
  for (int fd : {stdin_fd_, proto_fd_, out_fd_})
    if (fd >= 0) ::close(fd);
}

void Subprocess::drain(int timeout_ms) {
  pollfd fds[2] = {{proto_fd_, POLLIN, 0}, {out_fd_, POLLIN, 0}};
  const int n = poll(fds, 2, timeout_ms);
  if (n <= 0) return;
  char buf[65536];
  for (int i = 0; i < 2; ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    int& fd = i == 0 ? proto_fd_ : out_fd_;
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0) {
      (i == 0 ? proto_buf_ : output_).append(buf, static_cast<size_t>(got));
      if (output_.size() > (1u << 20)) output_.erase(0, output_.size() - (1u << 19));  // keep the tail
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      ::close(fd);
      fd = -1;
    }
  }
}

Subprocess::Read Subprocess::read_line_unless(std::string& line, std::chrono::steady_clock::time_point deadline,
                                              const std::function<bool()>& stop) {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    if (stop()) return Read::timeout;
    const auto step = std::min(deadline, Clock::now() + std::chrono::milliseconds(100));
    const Read r = read_line(line, step);
    if (r != Read::timeout || Clock::now() >= deadline) return r;
  }
}

Subprocess::Read Subprocess::read_line(std::string& line, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    // Only the bytes not searched yet (a flood without a line end costs its length once and
    // reaches the limit below, not the deadline); lines are taken in place from proto_start_ and
    // the buffer is compacted only once most of it is taken (a flood of short lines costs its
    // length, not its length times the buffer's).
    const size_t nl = proto_buf_.find('\n', proto_searched_);
    if (nl != std::string::npos) {
      line.assign(proto_buf_, proto_start_, nl - proto_start_);
      proto_start_ = proto_searched_ = nl + 1;
      if (proto_start_ > (size_t{1} << 20) && 2 * proto_start_ > proto_buf_.size()) {
        proto_buf_.erase(0, proto_start_);
        proto_start_ = proto_searched_ = 0;
      }
      return Read::line;
    }
    proto_searched_ = proto_buf_.size();
    // A child that floods the protocol must not exhaust the parent's memory.
    if (proto_buf_.size() - proto_start_ > kMaxProtocolLine)
      throw std::runtime_error(fmt::format("the worker sent more than {} MiB on its protocol descriptor without a line end", kMaxProtocolLine >> 20));
    if (proto_fd_ < 0) return Read::eof;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return Read::timeout;
    if (out_fd_ < 0) {  // only the protocol pipe left
      pollfd p{proto_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 100))) > 0) {
        char buf[65536];
        const ssize_t got = ::read(proto_fd_, buf, sizeof buf);
        if (got > 0) proto_buf_.append(buf, static_cast<size_t>(got));
        else if (got == 0 || errno != EINTR) { ::close(proto_fd_); proto_fd_ = -1; }
      }
    } else {
      drain(static_cast<int>(std::min<long long>(left, 100)));
    }
  }
}

bool Subprocess::write_line(const std::string& line) {
  if (stdin_fd_ < 0) return false;
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(stdin_fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

void Subprocess::close_stdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

void Subprocess::kill() {
  if (pid_ > 0 && !reaped_) {
    // What it started outside its group (a kernel's setsid chain): a worker is their subreaper.
    end_descendants(pid_, std::chrono::seconds(2));
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}

ExitStatus Subprocess::wait() {
  if (pid_ <= 0 || reaped_) return status_;
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  record_exit(st);
  return status_;
}

void Subprocess::record_exit(int st) {
  reaped_ = true;
  ::kill(-pid_, SIGKILL);  // nothing the child started outlives it
  if (WIFEXITED(st)) status_ = {true, WEXITSTATUS(st), false, 0};
  if (WIFSIGNALED(st)) status_ = {false, 0, true, WTERMSIG(st)};
  for (int i = 0; i < 20 && out_fd_ >= 0; ++i) drain(50);  // the last words of its output
}

bool Subprocess::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reaped_) {
    int st = 0;
    const pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      record_exit(st);
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (out_fd_ >= 0 || proto_fd_ >= 0) drain(20);
    else usleep(20000);
  }
  return true;
}

std::string Subprocess::output_tail(size_t max_bytes) const {
  return output_.size() <= max_bytes ? output_ : output_.substr(output_.size() - max_bytes);
}

}  // namespace hk
