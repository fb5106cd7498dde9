// Processes a run leaves behind: a kernel that forks and calls setsid() escapes its worker's
// process group, and outlives the worker. The parent makes itself the subreaper of everything it
// starts (PR_SET_CHILD_SUBREAPER), so such a process becomes its child when the worker ends, and
// ends them once its workers are gone: all of them, whichever runner started them (several
// runners at once in one process: `hkcheck mutate` runs mutants side by side).
#pragma once

namespace hk {

// From now on, orphaned descendants of this process are re-parented to it.
void adopt_orphans();

// Kills and reaps every child this process still has (call it when none of its own should be
// left: the workers are closed). Returns how many there were.
int end_orphans();

// Held by the owner of a worker process, or of any child this process waits for (a compile of
// run_bounded), from before it is started until after it is reaped:
// while any is held, end_orphans_when_no_worker() leaves every child alone (another runner's
// workers are this process's children too). Not copyable; one per worker.
class LiveWorkerMark {
 public:
  LiveWorkerMark();
  ~LiveWorkerMark();
  LiveWorkerMark(const LiveWorkerMark&) = delete;
  LiveWorkerMark& operator=(const LiveWorkerMark&) = delete;
};

// end_orphans() when no LiveWorkerMark is held, else nothing (returns 0): the last runner to
// finish ends what every runner left. No worker can start while it sweeps.
int end_orphans_when_no_worker();

}  // namespace hk
