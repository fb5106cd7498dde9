// Misbehaving kernels for tests/audit/audit.py (part "kernels"): process-level misbehaviour.
// Each does one bad thing from thread 0 of block 0 and leaves `out` unwritten, so the only way
// one of them can PASS is a harness bug. Host backend only: they call the C library.
#include "hkcheck.h"
#ifdef HK_BACKEND_HOST
#include <cassert>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#define AUDIT_FIRST (blockIdx.x == 0 && threadIdx.x == 0)

HK_KERNEL void audit_trap(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) __trap();
}

// Waits for an input to change, which it never does (the condition is read from memory).
HK_KERNEL void audit_endless(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  const volatile unsigned* q = reinterpret_cast<const volatile unsigned*>(x);
  const unsigned first = q[0];
  while (q[0] == first) {
  }
  out[0] = x[0];
}

// Spins on a shared flag that no other thread ever sets (threads are fibers on the host).
HK_KERNEL void audit_spin_shared(f32* out, const f32* x, int n, u64 p) {
  __shared__ int flag;
  if (threadIdx.x == 0) {
    while (*static_cast<volatile int*>(&flag) == static_cast<int>(p) + 12345) {
    }
    while (*static_cast<volatile int*>(&flag) == static_cast<int>(p)) {
    }
  }
}

#ifdef HK_BACKEND_HOST
HK_KERNEL void audit_exit0(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) exit(0);
}

HK_KERNEL void audit_exit1(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) exit(1);
}

HK_KERNEL void audit__exit0(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) _exit(0);
}

HK_KERNEL void audit_abort(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) abort();
}

HK_KERNEL void audit_assert(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) assert(p == 12345 && "audit: a failing assert");
}

HK_KERNEL void audit_raise_sigkill(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) raise(SIGKILL);
}

HK_KERNEL void audit_raise_sigterm(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) raise(SIGTERM);
}

// Stops the worker: it never reports, and must still be killed and reported.
HK_KERNEL void audit_raise_sigstop(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) raise(SIGSTOP);
}

// Signals the worker's own process group.
HK_KERNEL void audit_kill_own_group(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) kill(0, SIGTERM);
}

// Signals hkcheck itself, the worker's parent.
HK_KERNEL void audit_kill_parent_term(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) kill(getppid(), SIGTERM);
}

HK_KERNEL void audit_kill_parent_int(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) kill(getppid(), SIGINT);
}

// A child that leaves the worker's process group and session, closes its descriptors, and sleeps.
HK_KERNEL void audit_fork_setsid(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  if (fork() == 0) {
    setsid();
    for (int fd = 0; fd < 1024; ++fd) close(fd);
    sleep(120);
    _exit(0);
  }
}

// A grandchild that escapes: the child forks, the grandchild leaves the session, the child exits.
HK_KERNEL void audit_double_fork(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  if (fork() == 0) {
    if (fork() == 0) {
      setsid();
      sleep(120);
      _exit(0);
    }
    _exit(0);
  }
}

// A child that stays in the worker's process group and keeps its pipes (stdout, stderr, the
// protocol descriptor) open.
HK_KERNEL void audit_fork_hold_pipes(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  if (fork() == 0) {
    sleep(120);
    _exit(0);
  }
}

// A child that escapes and becomes another program (no hkcheck in its command line).
HK_KERNEL void audit_fork_exec(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  if (fork() == 0) {
    setsid();
    execl("/bin/sleep", "sleep", "123.4567", static_cast<char*>(nullptr));
    _exit(127);
  }
}

// SIGALRM in one second, then a wait that never ends by itself.
HK_KERNEL void audit_alarm(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  alarm(1);
  const volatile unsigned* q = reinterpret_cast<const volatile unsigned*>(x);
  const unsigned first = q[0];
  while (q[0] == first) {
  }
}

HK_KERNEL void audit_sleep_long(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) sleep(1000);
}

// A thread that spins on after the kernel returns.
static void* audit_spinner(void*) {
  for (;;) {
  }
  return nullptr;
}
HK_KERNEL void audit_thread_left(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  pthread_t t;
  pthread_create(&t, nullptr, audit_spinner, nullptr);
  pthread_detach(t);
}

// A SIGSEGV handler that returns to the faulting instruction: it faults forever.
static void audit_on_segv(int) {}
HK_KERNEL void audit_segv_handler_loop(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  signal(SIGSEGV, audit_on_segv);
  signal(SIGBUS, audit_on_segv);
  *reinterpret_cast<volatile int*>(p + 16) = 1;
}

// Ignores SIGTERM and SIGINT, then hangs: only SIGKILL ends it.
HK_KERNEL void audit_ignore_signals(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  sleep(1000);
}

HK_KERNEL void audit_chdir(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  if (chdir("/") != 0) out[0] = 0;
}

// Removes everything in the temporary folder $TMPDIR whose name starts with "hkcheck": the
// worker's own files and the compiled references of the run (audit.py gives the run a private
// TMPDIR; the kernel does nothing when TMPDIR does not name an audit folder).
HK_KERNEL void audit_rm_tmp(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  const char* tmp = getenv("TMPDIR");
  if (!tmp || !strstr(tmp, "audit")) return;  // only the audit's private TMPDIR, never a shared /tmp
  static char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'/hkcheck* 2>/dev/null", tmp);
  if (system(cmd) != 0) out[0] = 0;
}

#endif
