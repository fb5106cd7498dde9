// A worker's watch on hkcheck, its parent, from a thread of its own.
// - When the parent is gone (SIGKILLed included), the worker ends every process below it (it is
//   their subreaper, orphans.h: a kernel's setsid chains included) and exits. PR_SET_PDEATHSIG
//   alone would kill the worker first and leave them to init.
// - When asked (hkcheck runs without a terminal, so nobody stopped it on purpose), a parent
//   found stopped (a kernel of the same user sent it SIGSTOP) gets SIGCONT.
#pragma once

#include <sys/types.h>

namespace hk {

// Starts the watch of `parent` (checked every 50 ms) and turns the worker's PDEATHSIG off, which
// the watch replaces. Call it once the worker may have threads (after the host backend forked
// its kernel process).
void watch_parent(pid_t parent, bool resume_when_stopped);

}  // namespace hk
