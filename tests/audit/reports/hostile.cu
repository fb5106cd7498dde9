// Kernels for tests/audit/attacks_reports.py (part "reports"): their text is made to break the
// reports. hostile_printf_abort prints bytes that are not UTF-8, control characters, XML and
// markdown that would close a code block, start headings, mention someone and carry HTML, then
// aborts: the parent quotes the worker's output in the CRASH message. hostile_unwritten writes
// nothing (FAIL), for cases and tensors whose names are the attack. Host backend only.
#include "hkcheck.h"
#ifdef HK_BACKEND_HOST
#include <cstdio>
#include <cstdlib>
#endif

HK_KERNEL void hostile_printf_abort(f32* out, const f32* x, int n) {
#ifdef HK_BACKEND_HOST
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    static const char text[] =
        "\xff" "\xfe" " not UTF-8 \xc0\x80 overlong, \xed\xa0\x80 a surrogate, \xef\xbf\xbf U+FFFF\n"
        "controls \x01\x02\x0b\x0c\x1b[31m red\r\n"
        "XML ]]> </failure></testcase> <![CDATA[ x ]]> &amp; \"quoted\"\n"
        "```\n# Injected heading\n@octocat please look <img src=x onerror=alert(1)>\n````````````\n"
        "## Another injected heading @github/everyone\n";
    fwrite(text, 1, sizeof text - 1, stdout);
    fflush(stdout);
    abort();
  }
#endif
}

HK_KERNEL void hostile_unwritten(f32* out, const f32* x, const f32* pq_slash, const f32* pq_underscore, int n) {}
