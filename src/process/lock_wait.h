// Waiting for a cache lock another process holds (a compile, a reference library): never blind.
// A holder that was stopped (SIGSTOP, Ctrl-Z in another terminal) held every other run on that
// cache, and the waiting run did not even end on SIGINT (a blocking flock in a thread other than
// the one the signal reached is not interrupted).
#pragma once

#include <string>

namespace hk {

// Takes an exclusive flock on fd, polling: an interrupt of the run (interrupt.h) ends the wait
// (false), and past a few seconds the wait is said once on stderr, naming what (the lock's path)
// and its holder as the lock file says (its pid and whether it is stopped). Once taken, this
// process's pid is written into the lock file for the next waiter. False when the lock cannot be
// had (errno set) or the run was interrupted.
bool lock_exclusive_waiting(int fd, const std::string& what);

// "pid 123", "pid 123, stopped (kill -CONT 123 resumes it)", or "another process": the holder
// named in the lock file at fd.
std::string lock_holder(int fd);

}  // namespace hk
