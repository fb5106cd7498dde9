#include "process/interrupt.h"

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace hk {
namespace {

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_signals_seen = 0;
// Lock-free slots, so that the handler may read them.
constexpr int kWorkerSlots = 1024;
std::atomic<pid_t> g_workers[kWorkerSlots];
static_assert(std::atomic<pid_t>::is_always_lock_free);

// Whether the signal came from a running worker or a process of its group: a kernel runs inside
// a worker (on the host backend its code is the worker's own), and kill(getppid(), SIGTERM) from
// it must cost its own case, not stop the run. The terminal's Ctrl-C (sent by the kernel,
// si_code > 0) and any other sender are obeyed. getpgid is a plain system call, safe here.
bool sent_by_a_worker(const siginfo_t* info) {
  if (info == nullptr || info->si_code > 0 || info->si_pid <= 0) return false;
  const pid_t group = ::getpgid(info->si_pid);
  for (const auto& w : g_workers)
    if (const pid_t p = w.load(); p > 0 && (p == info->si_pid || p == group)) return true;
  return false;
}

// The first signal asks the run to stop: running cases end, the rest are NOT_RUN, the reports
// are written. The second kills the workers at once, and the reports are still written (a
// `timeout` sends SIGTERM to the process and to its group: two signals at once). Only a third
// ends the process on the spot, reports or not.
void on_signal(int sig, siginfo_t* info, void*) {
  if (sent_by_a_worker(info)) return;
  g_signals_seen = g_signals_seen + 1;
  if (g_signal == 0) {
    g_signal = sig;
    return;
  }
  for (auto& w : g_workers)
    if (const pid_t p = w.load(); p > 0) ::kill(-p, SIGKILL);
  if (g_signals_seen >= 3) _exit(128 + g_signal);
}

// SIGTSTP, SIGTTIN, SIGTTOU: the terminal's (si_code > 0: Ctrl-Z, a background job touching the
// terminal) stop hkcheck as usual; one that a process sent (a kernel of the same user) is ignored.
void on_stop_request(int, siginfo_t* info, void*) {
  if (info != nullptr && info->si_code > 0) ::raise(SIGSTOP);
}

}  // namespace

void ignore_stops_from_processes() {
  struct sigaction sa {};
  sa.sa_sigaction = on_stop_request;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  for (int sig : {SIGTSTP, SIGTTIN, SIGTTOU}) sigaction(sig, &sa, nullptr);
}

bool has_terminal() {
  const int fd = ::open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO;  // the sender, to tell a worker's signal from the user's; no SA_RESTART: a blocking wait returns and sees the request
  // SIGHUP too: a closed terminal or ssh session ends the run as SIGTERM does, results written.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int interrupt_signal() { return g_signal; }

bool add_running_worker(pid_t pgid) {
  for (auto& w : g_workers) {
    pid_t empty = 0;
    if (w.compare_exchange_strong(empty, pgid)) return true;
  }
  return false;
}

void remove_running_worker(pid_t pgid) {
  for (auto& w : g_workers) {
    pid_t p = pgid;
    if (w.compare_exchange_strong(p, 0)) return;
  }
}

void request_interrupt(int sig) { g_signal = sig; }

std::string interrupted_message(const std::string& what) {
  return what + ": the run was interrupted by " + signal_label(interrupt_signal());
}

std::string signal_label(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  if (sig == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(sig);
}

}  // namespace hk
