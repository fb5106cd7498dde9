// Misbehaving kernels for tests/audit (parts "kernels" and "verdicts"): attacks on the verdict
// itself. Each leaves `out` unwritten (or wrong) and tries to make hkcheck report PASS anyway:
// through the worker's protocol descriptor, through /proc or ptrace into the worker and hkcheck,
// by signals, or from a child that outlives the launch. On the host backend a kernel runs in a
// kernel process of its own (src/backends/host/kernel_process.h), so every one must FAIL (or
// CRASH, where it breaks its own process). Signature: (out, x, n, p) with p == 0 as a u64.
#include "hkcheck.h"
#ifdef HK_BACKEND_HOST
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#endif

#define AUDIT_FIRST (blockIdx.x == 0 && threadIdx.x == 0)

#ifdef HK_BACKEND_HOST
static void audit_put(int fd, const char* data, size_t len) {
  while (len > 0) {
    const ssize_t w = write(fd, data, len);
    if (w <= 0) return;
    data += w;
    len -= static_cast<size_t>(w);
  }
}

// A PASS for case n=1000 of `kernel` that agrees with itself: one output `out` of 1000 elements,
// none wrong, one launch (the fields of src/contracts/result.cpp). Only its id can give it away.
static int audit_consistent_pass(char* buf, size_t size, const char* id, const char* kernel) {
  return snprintf(buf, size,
                  "{\"type\":\"result\",\"id\":\"%s\",\"result\":{\"kernel\":\"%s\",\"case\":\"n=1000\",\"params\":{\"n\":1000.0},"
                  "\"status\":\"PASS\",\"message\":\"\",\"outputs\":[{\"name\":\"out\",\"dtype\":\"f32\",\"shape\":[1000],"
                  "\"numel\":1000,\"tolerance\":{\"atol\":0.0,\"rtol\":0.0,\"ulps\":0.0,\"max_mismatch_fraction\":0.0,"
                  "\"hard_ulps\":0.0},\"max_abs_diff\":0.0,\"max_rel_diff\":0.0,\"rel_l2\":0.0,\"max_ulps\":0.0,"
                  "\"mismatches\":0,\"mismatch_fraction\":0.0,\"unwritten\":0,\"nonfinite\":0,\"pass\":true,"
                  "\"first_mismatch\":null,\"worst\":null,\"window\":null,\"slices\":[],\"beyond_hard_ulps\":0,"
                  "\"compare\":\"elementwise\",\"checks\":[]}],\"timings_ms\":{\"compile\":0.0,\"kernel\":0.0,"
                  "\"reference\":0.0,\"wall\":0.0,\"compile_cached\":true},\"launches\":1,\"notes\":[]}}\n",
                  id, kernel);
}

// Replaces, in place, every `from` in line by `to` of the same length.
static void audit_swap(char* line, const char* from, const char* to) {
  for (char* s = strstr(line, from); s; s = strstr(s + 1, from)) memcpy(s, to, strlen(to));
}

// Sets every number after `key` in line to 0, in place (the rest of the digits become spaces).
static void audit_zero(char* line, const char* key) {
  for (char* s = strstr(line, key); s; s = strstr(s + 1, key)) {
    char* v = s + strlen(key);
    if (*v < '0' || *v > '9') continue;
    *v++ = '0';
    while ((*v >= '0' && *v <= '9') || *v == '.' || *v == 'e' || *v == '-' || *v == '+') *v++ = ' ';
  }
}

struct AuditRelay {
  int from, to;
  bool consistent;
};

// Reads the worker's protocol lines from the pipe the kernel put in place of descriptor 3 and
// passes them on to the real one, each result turned into a PASS: only the status (verbatim), or
// the status and every figure that says an output is wrong (consistent).
static void* audit_relay(void* arg) {
  const AuditRelay relay = *static_cast<AuditRelay*>(arg);
  static char line[1 << 22];
  size_t len = 0;
  for (;;) {
    const ssize_t r = read(relay.from, line + len, sizeof line - 1 - len);
    if (r <= 0) return nullptr;
    len += static_cast<size_t>(r);
    for (char* nl; (nl = static_cast<char*>(memchr(line, '\n', len)));) {
      *nl = 0;
      if (strstr(line, "\"type\":\"result\"")) {
        audit_swap(line, "\"status\":\"FAIL\"", "\"status\":\"PASS\"");
        if (relay.consistent) {
          audit_swap(line, "\"pass\":false", "\"pass\":true ");
          for (const char* key : {"\"mismatches\":", "\"unwritten\":", "\"nonfinite\":", "\"mismatch_fraction\":"}) audit_zero(line, key);
        }
      }
      *nl = '\n';
      audit_put(relay.to, line, static_cast<size_t>(nl + 1 - line));
      len -= static_cast<size_t>(nl + 1 - line);
      memmove(line, nl + 1, len);
    }
    if (len == sizeof line - 1) len = 0;
  }
}

// Puts a pipe in place of descriptor 3 (the worker's protocol descriptor when the kernel runs
// inside the worker) and relays what the worker writes there, forged, to the real descriptor.
static void audit_start_relay(bool consistent) {
  static AuditRelay relay;
  int p[2];
  const int real = dup(3);
  if (real < 0 || pipe(p) != 0 || dup2(p[1], 3) < 0) return;
  close(p[1]);
  relay = AuditRelay{p[0], real, consistent};
  pthread_t t;
  if (pthread_create(&t, nullptr, audit_relay, &relay) == 0) pthread_detach(t);
}
#endif

// The attack that worked when kernels ran inside the worker: the worker's own result, FAIL
// turned into PASS, with the request's genuine id.
HK_KERNEL void audit_forge_relay(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) audit_start_relay(false);
#endif
}

// The same, with every figure of the record made to agree with the PASS.
HK_KERNEL void audit_forge_relay_consistent(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) audit_start_relay(true);
#endif
}

#ifdef HK_BACKEND_HOST
// The parent of `pid` (the 4th field of /proc/PID/stat), or 0.
static pid_t audit_parent_of(pid_t pid) {
  char path[64], stat[512] = {0};
  snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t r = read(fd, stat, sizeof stat - 1);
  close(fd);
  const char* paren = r > 0 ? strrchr(stat, ')') : nullptr;
  return paren ? static_cast<pid_t>(atoi(paren + 4)) : 0;
}

// Request ids found in the readable, writable memory of `pid` (through /proc/PID/mem).
static int audit_scan_ids(pid_t pid, char ids[][64], int max) {
  static char maps[1 << 20];
  static char chunk[1 << 20];
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", static_cast<int>(pid));
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  size_t len = 0;
  for (ssize_t r; len < sizeof maps - 1 && (r = read(fd, maps + len, sizeof maps - 1 - len)) > 0;) len += static_cast<size_t>(r);
  close(fd);
  maps[len] = 0;
  snprintf(path, sizeof path, "/proc/%d/mem", static_cast<int>(pid));
  const int mem = open(path, O_RDONLY);
  if (mem < 0) return 0;
  const char* needle = "\"case\":\"n=1000\",\"id\":\"";
  int found = 0;
  for (char* ln = maps; ln && *ln && found < max;) {
    char* next = strchr(ln, '\n');
    if (next) *next++ = 0;
    unsigned long lo = 0, hi = 0;
    char perms[8] = {0};
    if (sscanf(ln, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[0] == 'r' && perms[1] == 'w' && !strstr(ln, "[v")) {
      for (unsigned long at = lo; at < hi && found < max; at += sizeof chunk - 128) {
        const ssize_t r = pread(mem, chunk, sizeof chunk, static_cast<off_t>(at));
        if (r <= 0) break;
        for (const char* hit = static_cast<const char*>(memmem(chunk, static_cast<size_t>(r), needle, strlen(needle))); hit && found < max;
             hit = static_cast<const char*>(memmem(hit + 1, static_cast<size_t>(chunk + r - hit - 1), needle, strlen(needle)))) {
          const char* s = hit + strlen(needle);
          const char* q = static_cast<const char*>(memchr(s, '"', static_cast<size_t>(chunk + r - s)));
          if (!q || q - s >= 63 || q == s) continue;
          memcpy(ids[found], s, static_cast<size_t>(q - s));
          ids[found++][q - s] = 0;
        }
      }
    }
    ln = next;
  }
  close(mem);
  return found;
}

// Tries to reach `pid` past its process boundary: its memory, ptrace, its descriptors. Every
// descriptor of it that opens for writing gets a consistent forged PASS for each id found in the
// memory of the worker or of hkcheck. Returns how many ways in worked.
static int audit_reach(pid_t pid, char ids[][64], int nids) {
  char path[64];
  int reached = 0;
  snprintf(path, sizeof path, "/proc/%d/mem", static_cast<int>(pid));
  const int mem = open(path, O_RDONLY);
  if (mem >= 0) ++reached, close(mem);
  if (ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) == 0) ++reached, ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  char byte;
  iovec local{&byte, 1}, remote{reinterpret_cast<void*>(0x10000), 1};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) >= 0 || errno == EFAULT) ++reached;
  static char line[8192];
  for (int fd = 0; fd < 64; ++fd) {
    snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(pid), fd);
    const int w = open(path, O_WRONLY | O_NONBLOCK);
    if (w < 0) continue;
    ++reached;
    for (int i = 0; i < nids; ++i) audit_put(w, line, static_cast<size_t>(audit_consistent_pass(line, sizeof line, ids[i], "audit_proc_reach")));
    close(w);
  }
  if (reached) fprintf(stderr, "audit_proc_reach: reached process %d %d way(s)\n", static_cast<int>(pid), reached);
  return reached;
}
#endif

// Through /proc and ptrace into the process above the kernel's (the worker) and the one above
// that (hkcheck): memory, request ids, descriptors to write a forged PASS to.
HK_KERNEL void audit_proc_reach(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  static char ids[64][64];
  const pid_t up = getppid(), top = audit_parent_of(up);
  int nids = audit_scan_ids(up, ids, 32);
  if (top > 1) nids += audit_scan_ids(top, ids + nids, 32);
  int reached = audit_reach(up, ids, nids);
  if (top > 1) reached += audit_reach(top, ids, nids);
  out[0] = static_cast<f32>(reached);  // for the audit: how many ways in worked (0 unless a boundary is missing)
#endif
}

// Signals the process above the kernel's (the worker) with every signal that ends a process by
// default but SIGKILL and SIGSTOP, and hkcheck with SIGTERM and SIGINT. out[0]: how many were
// delivered (0 when hkcheck runs as root: the kernel runs as nobody).
HK_KERNEL void audit_signal_worker(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  const pid_t up = getppid();
  int delivered = 0;
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGVTALRM, SIGPROF,
                  SIGXCPU, SIGXFSZ, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS})
    delivered += kill(up, sig) == 0;
  delivered += kill(up, SIGRTMIN + 3) == 0;
  const pid_t top = audit_parent_of(up);
  if (top > 1) delivered += (kill(top, SIGTERM) == 0) + (kill(top, SIGINT) == 0);
  usleep(200 * 1000);  // time for any of them to land
  out[0] = static_cast<f32>(delivered);
#endif
}

// A child that leaves the session and, once the launch is over, writes the right answer into
// out for seconds: too late, since the worker judges its own copy taken when the launch ended.
HK_KERNEL void audit_grandchild_writer(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  if (fork() == 0) {
    setsid();
    const timespec wait{0, 500 * 1000 * 1000}, tick{0, 1000 * 1000};
    nanosleep(&wait, nullptr);
    for (int k = 0; k < 3000; ++k) {
      for (int i = 0; i < n; ++i) out[i] = x[i];
      nanosleep(&tick, nullptr);
    }
    _exit(0);
  }
#endif
}

// /dev/null in place of every descriptor: the kernel process's channel to the worker included,
// so the launch can only end as a CRASH that says so.
HK_KERNEL void audit_garble_descriptors(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  const int null_fd = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 1024; ++fd)
    if (fd != null_fd) dup2(null_fd, fd);
#endif
}

// What a kernel running as the same user as hkcheck can still do; each is a probe of
// tests/audit/attacks_verdicts.py, whose expected verdict depends on who runs hkcheck.

// SIGSTOP to the worker: as root the kernel runs as nobody and may not (FAIL); as the same user
// the worker stops and the case is a TIMEOUT.
HK_KERNEL void audit_stop_worker(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) kill(getppid(), SIGSTOP), usleep(200 * 1000);
#endif
}

// SIGKILL to the worker: FAIL as root, a CRASH of this case as the same user.
HK_KERNEL void audit_kill_worker(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) kill(getppid(), SIGKILL), usleep(200 * 1000);
#endif
}

// SIGKILL to hkcheck itself: FAIL as root; as the same user the run ends there.
HK_KERNEL void audit_kill_hkcheck(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  const pid_t top = audit_parent_of(getppid());
  if (top > 1) kill(top, SIGKILL), usleep(200 * 1000);
#endif
}

// Creates the file $HKCHECK_AUDIT_PROBE_FILE: as root the kernel runs as nobody and cannot
// write into a folder of root's; as the same user it can write whatever that user can.
HK_KERNEL void audit_write_file(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  const char* path = getenv("HKCHECK_AUDIT_PROBE_FILE");
  if (!path) return;
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) audit_put(fd, "written by a kernel\n", 20), close(fd);
#endif
}

#ifdef HK_BACKEND_HOST
// The pid of another worker's kernel process: an "hkcheck" process whose parent is not ours but
// has our worker's parent (hkcheck) for its own; or 0.
static pid_t audit_other_kernel_process() {
  static char path[64], line[512];
  const pid_t self = getpid(), up = getppid(), top = audit_parent_of(up);
  DIR* d = opendir("/proc");
  if (!d) return 0;
  pid_t found = 0;
  while (const dirent* e = readdir(d)) {
    const pid_t pid = static_cast<pid_t>(atoi(e->d_name));
    if (pid <= 1 || pid == self || pid == up) continue;
    snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    const int fd = open(path, O_RDONLY);
    const ssize_t r = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
    if (fd >= 0) close(fd);
    if (r <= 0) continue;
    line[r] = 0;
    const char* paren = strrchr(line, ')');
    if (!paren || !strstr(line, " (hkcheck) ")) continue;
    const pid_t parent = static_cast<pid_t>(atoi(paren + 4));
    if (parent != up && parent > 1 && audit_parent_of(parent) == top) found = pid;
  }
  closedir(d);
  return found;
}
#endif

// Waits up to 5 s for the kernel process of another worker (run with --jobs 2) and SIGKILLs it:
// kernel processes share a uid, so it may. out[0]: 1 when it did. The limits probe of
// tests/audit/attacks_verdicts.py.
HK_KERNEL void audit_kill_neighbour(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (!AUDIT_FIRST) return;
  int killed = 0;
  for (int i = 0; i < 50 && !killed; ++i) {
    const pid_t other = audit_other_kernel_process();
    killed = other > 0 && kill(other, SIGKILL) == 0;
    if (!killed) usleep(100 * 1000);
  }
  out[0] = static_cast<f32>(killed);
#endif
}

// The neighbour: a launch of 3 s that leaves out unwritten (FAIL), unless something kills it.
HK_KERNEL void audit_neighbour_victim(f32* out, const f32* x, int n, u64 p) {
#ifdef HK_BACKEND_HOST
  if (AUDIT_FIRST) sleep(3);
#endif
}
