// hkcheck's exit codes, one table for every mode (README.md, "Exit codes").
#pragma once

#include "model/status.h"

namespace hk {

// 0: every case that ran passed (skips and XFAIL allowed). 1: a case did not pass (--diff: a
// case changed its verdict). 2: a usage or manifest error. 3: nothing was judged (no case
// selected, every case skipped, say for want of a GPU; --diff: no case in common): CI must not
// read that as a pass. An interrupted run exits 128 + the signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitNothingChecked = 3;

// The exit code of a finished run's verdicts (the status table says which fail a run and which
// judged the kernel).
inline int verdicts_exit_code(const Counts& c) {
  return c.any_failed() ? kExitFailed : c.judged() == 0 ? kExitNothingChecked : kExitOk;
}

}  // namespace hk
