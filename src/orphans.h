// Processes a run leaves behind: a kernel that forks and calls setsid() escapes its worker's
// process group, and outlives the worker. The parent makes itself the subreaper of everything it
// starts (PR_SET_CHILD_SUBREAPER), so such a process becomes its child when the worker ends, and
// ends them once its workers are gone.
#pragma once

namespace hk {

// From now on, orphaned descendants of this process are re-parented to it.
void adopt_orphans();

// Kills and reaps every child this process still has (call it when none of its own should be
// left: the workers are closed). Returns how many there were.
int end_orphans();

}  // namespace hk
