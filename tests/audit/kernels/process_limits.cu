// Kernels for part "limits" of tests/audit: what a host kernel does to the processes and the
// memory of a run. Each leaves `out` unwritten (a FAIL) unless hkcheck stops it first.
// Signature: (out, x, n, p) with p == 0 as a u64.
#include "hkcheck.h"
#ifdef HK_BACKEND_HOST
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#endif

#define AUDIT_FIRST (blockIdx.x == 0 && threadIdx.x == 0)

#ifdef HK_BACKEND_HOST
// The parent of pid, from /proc/PID/stat.
static pid_t limits_parent_of(pid_t pid) {
  char path[64], stat[512] = {0};
  snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t r = read(fd, stat, sizeof stat - 1);
  close(fd);
  const char* paren = r > 0 ? strrchr(stat, ')') : nullptr;
  return paren ? static_cast<pid_t>(atoi(paren + 4)) : 0;
}

// Nine processes, each a child of the one before in a session of its own, all sleeping.
static void limits_chain(int depth) {
  if (depth == 0) return;
  if (fork() == 0) {
    setsid();
    limits_chain(depth - 1);
    for (int fd = 0; fd < 1024; ++fd) close(fd);
    sleep(120);
    _exit(0);
  }
}
#endif

// A 9-deep setsid chain left running: none of it may outlive the run.
HK_KERNEL void audit_setsid_chain(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) limits_chain(9), usleep(300 * 1000);
#endif
}

// The same chain, then a launch that never ends: the audit SIGKILLs hkcheck meanwhile.
HK_KERNEL void audit_setsid_chain_hang(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) {
    limits_chain(9);
    sleep(1000);
  }
#endif
}

// SIGSTOP to hkcheck (the worker's parent): as root the kernel runs as nobody and may not; as the
// same user the worker resumes it.
HK_KERNEL void audit_stop_hkcheck(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  const pid_t top = limits_parent_of(getppid());
  if (top > 1) kill(top, SIGSTOP), usleep(500 * 1000);
#endif
}

// SIGTSTP, SIGTTIN and SIGTTOU to hkcheck: ignored when a process sends them.
HK_KERNEL void audit_tstp_hkcheck(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  const pid_t top = limits_parent_of(getppid());
  if (top > 1) kill(top, SIGTSTP), kill(top, SIGTTIN), kill(top, SIGTTOU), usleep(500 * 1000);
#endif
}

// Takes memory 64 MiB at a time, touching every page, up to 6 GiB, then gives it back: over a
// --memory-limit of 1G it must be stopped (a CRASH, MEMORY_LIMIT).
HK_KERNEL void audit_memory_hog(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  constexpr size_t kStep = size_t{64} << 20;
  static char* held[96];
  for (int i = 0; i < 96; ++i) {
    held[i] = static_cast<char*>(malloc(kStep));
    if (!held[i]) break;
    memset(held[i], 1, kStep);
    usleep(20 * 1000);
  }
  for (char* h : held) free(h);
#endif
}
