#include "backends/host/kernel_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "platform/backend.h"
#include "backends/host/kernel_server.h"
#include "process/subprocess.h"

namespace hk::host {
namespace {

constexpr size_t kTailBytes = 2000;  // of the kernel's output, for a CRASH message

const char* during_op(KernelOp op) {
  switch (op) {
    case KernelOp::load: return "while loading the kernel";
    case KernelOp::map: return "while mapping a buffer";
    case KernelOp::unmap: return "while unmapping a buffer";
    case KernelOp::launch: return "during the launch";
    case KernelOp::time: return "during the timed launches";
  }
  return "";
}

// A fault signal that another process sent is ignored; a real fault (or the worker's own
// raise/abort) ends the worker as it would have without the handler.
void on_fault_signal(int sig, siginfo_t* info, void*) {
  const bool sent = info->si_code <= 0;
  if (sent && info->si_pid != getpid()) return;
  signal(sig, SIG_DFL);
  if (sent) raise(sig);
}

// The kernel process can send the worker signals when it runs as the same user: the worker
// ignores every one it can. SIGKILL and SIGSTOP remain (a CRASH or a TIMEOUT of the case).
void shield_worker_from_signals() {
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGVTALRM,
                  SIGPROF, SIGPOLL, SIGXCPU, SIGXFSZ})
    signal(sig, SIG_IGN);
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) signal(sig, SIG_IGN);
  struct sigaction sa {};
  sa.sa_sigaction = &on_fault_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

KernelProcess::KernelProcess(Backend& local) {
  int sv[2], out[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw BackendError(std::string("cannot make the kernel process's channel: ") + std::strerror(errno), false);
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(sv[0]);
    close(sv[1]);
    throw BackendError(std::string("cannot make the kernel process's output pipe: ") + std::strerror(errno), false);
  }
  std::cout.flush();
  fflush(nullptr);  // nothing buffered is written twice
  const pid_t worker = getpid();
  pid_ = fork();
  if (pid_ == 0) {
    close(sv[0]);
    close(out[0]);
    serve_kernel_process(local, sv[1], out[1], worker);
  }
  close(sv[1]);
  close(out[1]);
  sock_ = sv[0];
  out_ = out[0];
  if (pid_ < 0) {
    close(sock_);
    close(out_);
    throw BackendError(std::string("cannot fork the kernel process: ") + std::strerror(errno), false);
  }
  fcntl(out_, F_SETFL, O_NONBLOCK);
  shield_worker_from_signals();
  std::string hello;
  try {
    receive(KernelOp::load, 0, hello);
  } catch (const BackendError& e) {
    close(sock_);
    if (out_ >= 0) close(out_);
    throw BackendError(std::string("the kernel process did not start: ") + e.what(), false);
  }
  note_ = hello;
}

KernelProcess::~KernelProcess() {
  close(sock_);
  if (!reaped_) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
  }
  if (out_ >= 0) close(out_);
}

KernelReply KernelProcess::call(KernelRequest q, const std::string& tail, int fd, std::string* reply_tail) {
  if (!dead_.empty()) throw BackendError(dead_, true);
  q.seq = ++seq_;
  if (!send_packet(sock_, pack(q, tail), fd)) gone(q.op, "closed its channel");
  std::string text;
  const KernelReply r = receive(q.op, q.seq, text);
  switch (r.code) {
    case KernelReplyCode::ok:
      if (reply_tail) *reply_tail = std::move(text);
      return r;
    case KernelReplyCode::missing_entry: throw MissingEntry(text);
    case KernelReplyCode::error: throw BackendError(text, false);
    case KernelReplyCode::sticky: break;
    case KernelReplyCode::race: throw RacesFound(race_from_text(text));
    case KernelReplyCode::finding: throw LaunchFinding(text);
  }
  throw BackendError(text, true);
}

// A race report as the kernel process sent it; one it garbled is a harness error, never a pass.
RaceReport KernelProcess::race_from_text(const std::string& text) {
  try {
    return nlohmann::json::parse(text).get<RaceReport>();
  } catch (const std::exception& e) {
    throw BackendError(fmt::format("the kernel process sent a race report that cannot be read: {}", e.what()), true);
  }
}

// The reply to request `seq`. The kernel's output is relayed as it comes; every tenth of a
// second the process is checked, since a child the kernel forked may hold its channel open.
KernelReply KernelProcess::receive(KernelOp op, uint32_t seq, std::string& tail) {
  for (;;) {
    pollfd p[2] = {{sock_, POLLIN, 0}, {out_, POLLIN, 0}};
    const int n = poll(p, out_ >= 0 ? 2 : 1, 100);
    if (n < 0 && errno != EINTR) gone(op, "could not be waited for");
    if (out_ >= 0 && p[1].revents) relay();
    if (p[0].revents) {
      std::string bytes;
      int fd = -1;
      const ssize_t got = recv_packet(sock_, bytes, &fd);
      if (fd >= 0) close(fd);
      KernelReply r;
      if (got <= 0) gone(op, "closed its channel");
      if (!unpack(bytes, r, tail) || r.seq != seq) gone(op, "answered out of turn");
      if (r.code == KernelReplyCode::ok && op == KernelOp::time && tail.size() < static_cast<size_t>(r.times) * sizeof(double))
        gone(op, "sent fewer times than it counted");
      relay();
      return r;
    }
    if (n == 0 && ended()) gone(op, "");
  }
}

bool KernelProcess::ended() {
  if (reaped_) return true;
  int st = 0;
  if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
  status_ = st;
  reaped_ = true;
  return true;
}

// The kernel process is unusable: says how it ended, with the kernel's last output.
void KernelProcess::gone(KernelOp op, const std::string& what) {
  // A process that died closes its channel just before it can be reaped.
  for (int i = 0; i < 100 && !ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool by_itself = ended();
  if (!by_itself) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {}
    reaped_ = true;
  }
  relay();
  ExitStatus st;
  st.exited = by_itself && WIFEXITED(status_);
  st.code = st.exited ? WEXITSTATUS(status_) : 0;
  st.signaled = by_itself && WIFSIGNALED(status_);
  st.signal = st.signaled ? WTERMSIG(status_) : 0;
  const bool lost = st.exited && st.code == kKernelChannelLost;
  std::string how = st.signaled ? fmt::format("the kernel's process died {}: {}", during_op(op), st.describe())
                    : lost      ? fmt::format("the kernel process lost its channel to the worker {} (the kernel closed or replaced "
                                              "descriptor {})",
                                              during_op(op), kKernelChannelFd)
                    : st.exited ? fmt::format("the kernel ended its process {} ({})", during_op(op), st.describe())
                                : fmt::format("the kernel process {} {} (did the kernel close or replace descriptor {}?); it was killed",
                                              what, during_op(op), kKernelChannelFd);
  if (!output_tail_.empty()) how += "; its output: " + output_tail_;
  dead_ = how;
  throw BackendError(how, true);
}

// Copies what the kernel wrote so far to this process's stdout (hkcheck reads it as the worker's
// output), keeping the last bytes for a CRASH message. Bounded, so that a child that writes
// without end cannot keep the worker from its channel.
void KernelProcess::relay() {
  char buf[1 << 16];
  for (size_t total = 0; out_ >= 0 && total < (size_t{4} << 20);) {
    const ssize_t n = ::read(out_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // every writer is gone
      close(out_);
      out_ = -1;
    }
    if (n <= 0) return;
    write_all(1, buf, static_cast<size_t>(n));
    output_tail_.append(buf, static_cast<size_t>(n));
    if (output_tail_.size() > kTailBytes) output_tail_.erase(0, output_tail_.size() - kTailBytes);
    total += static_cast<size_t>(n);
  }
}

}  // namespace hk::host
