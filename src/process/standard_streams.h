// hkcheck's own output never ends a run: a closed stderr, a full one (/dev/full, a full disk), or
// a reader that went away (`hkcheck ... 2>&1 | head`) costs what is printed, never the results.
// Without this, a failed write made fmt::print throw (exit 134 before any case) and a gone reader
// sent SIGPIPE (the run died mid-way with no results).
#pragma once

namespace hk {

// Call first in main, before any thread or child: descriptors 0-2 that are closed are opened on
// /dev/null (so that no later open() takes their number and receives hkcheck's messages), SIGPIPE
// is ignored, and stdout and stderr become streams whose writes report success whatever the
// descriptor does; what could not be written is dropped.
void keep_standard_streams_writable();

// Whether the console's status line (console_reporter.h) is on the terminal now: while it is,
// the first other write to stderr clears it, so that no message runs into it.
void status_line_shown(bool shown);

// How many bytes of hkcheck's output were dropped so far (for tests).
unsigned long long dropped_output_bytes();

}  // namespace hk
