#include "interrupt.h"

#include <csignal>
#include <unistd.h>

namespace hk {
namespace {

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_worker = 0;

void on_signal(int sig) {
  if (g_signal != 0) {  // the second one: no more waiting
    if (g_worker > 0) ::kill(-static_cast<pid_t>(g_worker), SIGKILL);
    _exit(128 + sig);
  }
  g_signal = sig;
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

void set_current_worker(pid_t pgid) { g_worker = pgid; }

void request_interrupt(int sig) { g_signal = sig; }

std::string signal_label(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

}  // namespace hk
