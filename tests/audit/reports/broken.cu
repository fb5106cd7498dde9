// Does not compile, on purpose, for tests/audit/attacks_reports.py: the compiler's log quotes the
// line below, whose text would close a markdown code block, start a heading, mention someone and
// carry HTML. The audit replaces NOT_UTF8 with bytes that are not UTF-8 in its copy of this file.
#include "hkcheck.h"
#error NOT_UTF8 ```````````` # Injected heading from a compile log @octocat <script>alert(1)</script> ]]>
HK_KERNEL void broken(f32* out, const f32* x, int n) {}
