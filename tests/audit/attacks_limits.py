"""Part "limits" of tests/audit/audit.py: the processes and the memory of a run.

The kernels of tests/audit/kernels/process_limits.cu leave a 9-deep setsid chain running (after a
normal end of the run, and when hkcheck is SIGKILLed while the chain lives: none of it may
survive either), send hkcheck SIGSTOP or SIGTSTP/SIGTTIN/SIGTTOU (the run must still end by
itself), and take 6 GiB under --memory-limit 1G (a CRASH with reason MEMORY_LIMIT, the next case
unharmed). As root, and again as uid 65534 with setpriv (hkcheck and its kernels then share a
uid, so the signals do reach hkcheck). tests/audit/README.md, part 8.
"""
import os
import shutil
import signal
import threading
import time

import audit as A
import attacks_verdicts as V

NOBODY = V.NOBODY
FIRST, LAST = V.CONTROLS


def probe(audit, ok, what, why="", keep=None):
    if ok:
        audit.held(what)
    else:
        audit.finding("limits", f"{what}{': ' + why if why else ''}", keep=keep)


def no_leftovers(audit, label, tag, folder, grace=1.0):
    left = A.leftovers(tag, grace)
    probe(audit, not left, f"{label}: no process outlives the run", "; ".join(f"{pid} {cmd[:60]}" for pid, cmd in left[:5]), folder)


def verdict(cases, name):
    c = (cases or {}).get(name, {})
    return c.get("actual_status") or c.get("status"), c


def probe_chain(audit, folder, label, uid):
    tag = audit.new_tag("chain")
    r, cases = V.run_as(audit, folder, (FIRST, "audit_setsid_chain", LAST), [], tag, uid, limit=120)
    st, c = verdict(cases, "audit_setsid_chain")
    probe(audit, r.rc == 0 and st == "FAIL", f"{label}: a 9-deep setsid chain: FAIL of its own case, exit 0",
          f"{A.describe_rc(r.rc)}, {st}: {c.get('message', '')[:160]}", folder)
    no_leftovers(audit, f"{label}, setsid chain", tag, folder)


def hkcheck_pid(tag):
    for pid, cmd in A.tagged_processes(tag):
        if "/hkcheck " in cmd + " " and "--worker" not in cmd and not cmd.startswith(("sh ", "setpriv", "nice")):
            return pid
    return None


def probe_chain_killed(audit, folder, label, uid):
    """SIGKILL of hkcheck while the chain runs (within the case's 5 s --timeout): nothing of the run
    may be alive 5 s later."""
    tag = audit.new_tag("chainkill")
    folder.mkdir(parents=True, exist_ok=True)
    env_more = {}
    result = {}
    t = threading.Thread(target=lambda: result.update(zip(("r", "cases"), V.run_as(audit, folder, ("audit_setsid_chain_hang",),
                                                                                  [], tag, uid, env_more, limit=120))))
    t.start()
    deadline, pid = time.monotonic() + 90, None
    while time.monotonic() < deadline:
        pid = hkcheck_pid(tag)
        if pid and len(A.tagged_processes(tag)) >= 12:  # sh, hkcheck, the worker, its kernel process and the chain
            break
        time.sleep(0.2)
    if pid is None:
        probe(audit, False, f"{label}: the chain started", "no hkcheck process found", folder)
        t.join()
        return
    time.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    t.join()
    no_leftovers(audit, f"{label}, hkcheck SIGKILLed while a setsid chain runs", tag, folder, grace=5.0)


def probe_stops(audit, folder, label, uid):
    for name in ("audit_stop_hkcheck", "audit_tstp_hkcheck"):
        tag = audit.new_tag("stop")
        r, cases = V.run_as(audit, folder / name, (FIRST, name, LAST), [], tag, uid, limit=90)
        st, c = verdict(cases, name)
        probe(audit, not r.timed_out and r.rc == 0 and st == "FAIL", f"{label}: {name}: the run ends by itself, the case FAIL",
              f"{'still stopped after 90 s' if r.timed_out else A.describe_rc(r.rc)}, {st}: {c.get('message', '')[:160]}", folder / name)
        no_leftovers(audit, f"{label}, {name}", tag, folder / name)


def probe_memory(audit, folder, label, uid):
    tag = audit.new_tag("mem")
    r, cases = V.run_as(audit, folder, (FIRST, "audit_memory_hog", LAST), ["--memory-limit", "1G"], tag, uid, limit=120)
    st, c = verdict(cases, "audit_memory_hog")
    probe(audit, r.rc == 0 and st == "CRASH" and c.get("reason") == "MEMORY_LIMIT" and "1 GiB" in c.get("message", ""),
          f"{label}: a kernel over --memory-limit 1G: CRASH, MEMORY_LIMIT, the figure in its message",
          f"{A.describe_rc(r.rc)}, {st} ({c.get('reason')}): {c.get('message', '')[:200]}", folder)
    others = [verdict(cases, k)[0] for k in (FIRST, LAST)]
    probe(audit, others == ["PASS", "PASS"], f"{label}: the other cases of a run over --memory-limit PASS", f"{others}", folder)
    doc, _ = A.load_json(folder / "out" / "test_results.json")
    spec = ((doc or {}).get("run") or {}).get("spec") or {}
    probe(audit, spec.get("memory_limit") == str(1 << 30), f"{label}: run.spec records --memory-limit",
          f"memory_limit {spec.get('memory_limit')!r}", folder)
    no_leftovers(audit, f"{label}, memory hog", tag, folder)


def probe_bad_option(audit, folder):
    tag = audit.new_tag("memopt")
    r = A.run_hk(audit, ["--backend", "host", "--memory-limit", "4X", "--out", folder / "out", FIRST], tag, A.REPO, 60)
    probe(audit, r.rc == 2 and "--memory-limit" in r.stderr, "--memory-limit 4X is a usage error naming the option",
          f"{A.describe_rc(r.rc)}: {r.stderr[:200]}")


def part_limits(audit, args):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    work = A.fresh_folder(audit, "limits")
    me = "root" if os.geteuid() == 0 else "this user"
    users = [(f"as {me}", None, work / "self")]
    if os.geteuid() == 0 and shutil.which("setpriv"):
        os.chmod(work, 0o755)
        users.append(("as an unprivileged user", NOBODY, work / "user"))
    probe_bad_option(audit, work / "option")
    for label, uid, folder in users:
        folder.mkdir(parents=True, exist_ok=True)
        if uid is not None:
            os.chmod(folder, 0o777)
        probe_chain(audit, folder / "chain", label, uid)
        probe_chain_killed(audit, folder / "chain-killed", label, uid)
        probe_stops(audit, folder / "stops", label, uid)
        probe_memory(audit, folder / "memory", label, uid)
    print(f"part limits: {audit.passed - p0} held, {audit.failed - f0} findings, {time.monotonic() - t0:.0f} s", flush=True)
