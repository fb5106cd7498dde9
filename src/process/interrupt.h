// SIGINT, SIGTERM and SIGHUP in the parent: the first asks the run to stop (the case in progress is
// killed, the rest are NOT_RUN, the reports are written); a second one kills every running
// worker's process group and exits at once. Workers also die with the parent (PDEATHSIG).
#pragma once

#include <string>
#include <sys/types.h>

namespace hk {

void install_interrupt_handlers();

// SIGTSTP, SIGTTIN and SIGTTOU sent by a process (a kernel running as hkcheck's user) are
// ignored; from the terminal (Ctrl-Z) they stop hkcheck as usual. SIGSTOP cannot be ignored: a
// host worker resumes a parent that has no terminal (parent_watch.h).
void ignore_stops_from_processes();

// Whether this process has a controlling terminal (someone may stop and resume it on purpose).
bool has_terminal();

// The signal that asked the run to stop, or 0.
int interrupt_signal();

// Process groups a second signal kills at once: every running worker is registered
// while it runs (several at once with --jobs / --devices). Returns false when all slots are taken.
bool add_running_worker(pid_t pgid);
void remove_running_worker(pid_t pgid);

// "SIGINT", "SIGTERM", or "signal N".
std::string signal_label(int sig);

// What a case the interrupt left without a verdict says: "not started: the run was interrupted by
// SIGINT" for what = "not started".
std::string interrupted_message(const std::string& what);

// For tests: as if signal sig had been received (0 clears the request).
void request_interrupt(int sig);

}  // namespace hk
