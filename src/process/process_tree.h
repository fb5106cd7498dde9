// The processes below one process, read from /proc: what a worker and its kernel started,
// including those that left the worker's process group and session (setsid). A process that is
// a subreaper (orphans.h) keeps its orphaned descendants below it, so killing what is listed,
// round after round, ends a chain of any depth.
#pragma once

#include <chrono>
#include <cstdint>
#include <sys/types.h>
#include <vector>

namespace hk {

// Every live descendant of root (not root itself), parents before their children.
std::vector<pid_t> descendants(pid_t root);

// 'R', 'S', 'Z', 'T'...: the state field of /proc/PID/stat, or 0 when it is gone.
char state_of(pid_t pid);

// SIGKILLs root's descendants until none is left or `bound` passes (a process forking without
// end); reaps those that are this process's own children. Returns how many were killed.
int end_descendants(pid_t root, std::chrono::milliseconds bound);

// Memory that root and its descendants hold for themselves: the sum of their anonymous and
// shared-memory resident pages (RssAnon + RssShmem of /proc/PID/status), in bytes, and the pages
// of every memfd one of them holds open that none of them maps (RssShmem counts no page that is
// not mapped: 1.5 GiB written into an unmapped memfd passed --memory-limit 512M). Pages mapped by
// two of them are counted twice.
uint64_t tree_resident_bytes(pid_t root);

}  // namespace hk
