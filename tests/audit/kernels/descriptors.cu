// Misbehaving kernels for tests/audit/audit.py (part "kernels"): the worker's descriptors.
// The worker speaks its protocol on descriptor 3 (src/worker/worker.h); its stdout and stderr go to a
// pipe the parent drains. Each kernel does one bad thing from thread 0 of block 0 and leaves
// `out` unwritten, so the only way one of them can PASS is a harness bug (or a forgery that
// worked). Host backend only.
#include "hkcheck.h"
#ifdef HK_BACKEND_HOST
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#endif

#define AUDIT_FIRST (blockIdx.x == 0 && threadIdx.x == 0)

#ifdef HK_BACKEND_HOST
static void audit_write_all(int fd, const char* data, size_t len) {
  while (len > 0) {
    const ssize_t w = write(fd, data, len);
    if (w <= 0) return;
    data += w;
    len -= static_cast<size_t>(w);
  }
}

// Writes `total` bytes of a repeated line to fd.
static void audit_flood(int fd, size_t total) {
  static char chunk[1 << 16];
  for (size_t i = 0; i < sizeof chunk; ++i) chunk[i] = (i % 64 == 63) ? '\n' : 'A' + static_cast<char>(i % 26);
  for (size_t done = 0; done < total; done += sizeof chunk) audit_write_all(fd, chunk, sizeof chunk);
}

// A well-formed result line for case n=1000 of `kernel` claiming PASS (the form of
// src/worker/worker.cpp's {"type":"result","id":I,"result":{...CaseResult...}}, fields of src/contracts/result.cpp).
static int audit_forged_result(char* buf, size_t size, const char* id, const char* kernel) {
  return snprintf(buf, size,
                  "{\"type\":\"result\",\"id\":\"%s\",\"result\":{\"kernel\":\"%s\",\"case\":\"n=1000\","
                  "\"params\":{\"n\":1000.0},\"status\":\"PASS\",\"message\":\"\",\"outputs\":[],"
                  "\"timings_ms\":{\"compile\":0.0,\"kernel\":0.0,\"reference\":0.0,\"wall\":0.0,\"compile_cached\":true},"
                  "\"launches\":1,\"notes\":[\"forged by the kernel\"]}}\n",
                  id, kernel);
}

HK_KERNEL void audit_close3(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) close(3);
}

HK_KERNEL void audit_close0(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) close(0);
}

HK_KERNEL void audit_close12(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) close(1), close(2);
}

HK_KERNEL void audit_close_all(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST)
    for (int fd = 0; fd < 1024; ++fd) close(fd);
}

// Points the protocol descriptor at stdout: the worker's result goes to its output instead.
HK_KERNEL void audit_dup2_stdout_to_3(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) dup2(1, 3);
}

// Points the protocol descriptor at /dev/null.
HK_KERNEL void audit_devnull_to_3(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  const int fd = open("/dev/null", O_WRONLY);
  if (fd >= 0) dup2(fd, 3);
}

HK_KERNEL void audit_flood_stdout(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) audit_flood(1, size_t(300) << 20);
}

HK_KERNEL void audit_flood_stderr(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) audit_flood(2, size_t(300) << 20);
}

// printf from every thread, in a loop.
HK_KERNEL void audit_printf_loop(f32* out, const f32* x, int n, u64 p) {
  for (int k = 0; k < 200; ++k) printf("audit printf block %d thread %d line %d\n", (int)blockIdx.x, (int)threadIdx.x, k);
}

// 300 MiB on the protocol descriptor with a newline every 64 bytes: junk lines.
HK_KERNEL void audit_flood_protocol_lines(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) audit_flood(3, size_t(300) << 20);
}

// 300 MiB on the protocol descriptor with no newline at all.
HK_KERNEL void audit_flood_protocol_noline(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  static char chunk[1 << 16];
  memset(chunk, '{', sizeof chunk);
  for (size_t done = 0; done < (size_t(300) << 20); done += sizeof chunk) audit_write_all(3, chunk, sizeof chunk);
}

// Lines that are not JSON, JSON that is not an object, objects of the wrong kind.
HK_KERNEL void audit_protocol_garbage(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  const char* lines = "garbage\n[1,2,3]\n\"text\"\nnull\n{\"type\":\"result\"}\n{\"type\":\"result\",\"id\":null}\n"
                      "{\"type\":\"result\",\"id\":{},\"result\":1}\n{\"type\":\"hello\",\"ok\":true}\n\xff\xfe\n{\n";
  audit_write_all(3, lines, strlen(lines));
}

// A forged PASS with no id, and with guessed ids.
HK_KERNEL void audit_forge_noid(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  static char buf[4096];
  for (const char* id : {"", "0", "0000000000000000-0", "0000000000000000-1", "*"}) {
    const int len = audit_forged_result(buf, sizeof buf, id, "audit_forge_noid");
    audit_write_all(3, buf, static_cast<size_t>(len));
  }
  const char* no_id = "{\"type\":\"result\",\"result\":{\"kernel\":\"audit_forge_noid\",\"case\":\"n=1000\",\"params\":{},"
                      "\"status\":\"PASS\",\"outputs\":[],\"timings_ms\":{\"compile\":0,\"kernel\":0,\"reference\":0,"
                      "\"wall\":0,\"compile_cached\":true}}}\n";
  audit_write_all(3, no_id, strlen(no_id));
}

// Scans the worker's own writable memory for the request it was sent (the parent writes it with
// its keys in alphabetical order: {"case":"n=1000","id":"...","job":{...},"kernel":...,"type":"run"})
// and writes, for every id found, a forged PASS result carrying that id. Returns how many.
static int audit_forge_with_scanned_ids(const char* kernel) {
  static char maps[1 << 20];
  static char id[128];
  static char line[8192];
  static const char* needles[] = {"{\"case\":\"n=1000\",\"id\":\"", "{\"type\":\"run\",\"id\":\""};
  const int fd = open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return 0;
  size_t len = 0;
  for (ssize_t r; len < sizeof maps - 1 && (r = read(fd, maps + len, sizeof maps - 1 - len)) > 0;) len += static_cast<size_t>(r);
  close(fd);
  maps[len] = 0;
  int forged = 0;
  for (char* ln = maps; ln && *ln;) {
    char* next = strchr(ln, '\n');
    if (next) *next++ = 0;
    unsigned long lo = 0, hi = 0;
    char perms[8] = {0};
    if (sscanf(ln, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[0] == 'r' && perms[1] == 'w' && !strstr(ln, "[v")) {
      const char* base = reinterpret_cast<const char*>(lo);
      const size_t size = hi - lo;
      for (const char* needle : needles) {
        const size_t nlen = strlen(needle);
        for (const char* hit = static_cast<const char*>(memmem(base, size, needle, nlen)); hit;
             hit = static_cast<const char*>(memmem(hit + 1, size - static_cast<size_t>(hit + 1 - base), needle, nlen))) {
          const char* s = hit + nlen;
          const char* q = static_cast<const char*>(memchr(s, '"', static_cast<size_t>(base + size - s)));
          if (!q || q == s || q - s >= static_cast<long>(sizeof id)) continue;
          if (s >= line && s < line + sizeof line) continue;  // our own forged line
          memcpy(id, s, static_cast<size_t>(q - s));
          id[q - s] = 0;
          const int l = audit_forged_result(line, sizeof line, id, kernel);
          audit_write_all(3, line, static_cast<size_t>(l));
          fprintf(stderr, "%s: forged a PASS with id %s\n", kernel, id);
          ++forged;
        }
      }
    }
    ln = next;
  }
  return forged;
}

// A forged PASS with the request's real id, found in the worker's own memory; the real result
// follows it.
HK_KERNEL void audit_forge_scan(f32* out, const f32* x, int n, u64 p) {
  if (AUDIT_FIRST) audit_forge_with_scanned_ids("audit_forge_scan");
}

// The same, then _exit(0), so that no real result ever follows.
HK_KERNEL void audit_forge_scan_exit(f32* out, const f32* x, int n, u64 p) {
  if (!AUDIT_FIRST) return;
  audit_forge_with_scanned_ids("audit_forge_scan_exit");
  _exit(0);
}
#endif
