#include "interrupt.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace hk {
namespace {

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_signals_seen = 0;
// Lock-free slots, so that the handler may read them.
constexpr int kWorkerSlots = 1024;
std::atomic<pid_t> g_workers[kWorkerSlots];
static_assert(std::atomic<pid_t>::is_always_lock_free);

// The first signal asks the run to stop: running cases end, the rest are NOT_RUN, the reports
// are written. The second kills the workers at once, and the reports are still written (a
// `timeout` sends SIGTERM to the process and to its group: two signals at once). Only a third
// ends the process on the spot, reports or not.
void on_signal(int sig) {
  g_signals_seen = g_signals_seen + 1;
  if (g_signal == 0) {
    g_signal = sig;
    return;
  }
  for (auto& w : g_workers)
    if (const pid_t p = w.load(); p > 0) ::kill(-p, SIGKILL);
  if (g_signals_seen >= 3) _exit(128 + g_signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns and sees the request
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
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

std::string signal_label(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

}  // namespace hk
