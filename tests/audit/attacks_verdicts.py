"""Part "verdicts" of tests/audit/audit.py: can a host kernel forge its verdict?

On the host backend a kernel runs in a kernel process of its own (src/backends/host/
kernel_process.h); the worker judges a copy of the buffers and answers hkcheck on a descriptor the
kernel process does not have. The kernels of tests/audit/kernels/verdicts.cu attack that
boundary: a relay of the worker's own result as a PASS over descriptor 3, /proc and ptrace into
the worker and hkcheck, signals, a child writing the answer after the launch, every descriptor
replaced. Each must FAIL (garble_descriptors: CRASH), with default worker reuse and with
--isolation case, as root and, when the audit runs as root, as an unprivileged user (hkcheck and
its kernels then share a uid: what protects the worker is that no hkcheck process is dumpable).
The kernels of limits.json do what only the uid can forbid: stop or kill the worker, kill
hkcheck, write a file; as root each must FAIL, as a user each is reported as a LIMIT.
tests/audit/README.md, part 4.
"""
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import audit as A

KERNELS = A.HERE / "kernels"
ATTACKS = ("audit_forge_relay", "audit_forge_relay_consistent", "audit_proc_reach", "audit_signal_worker",
           "audit_grandchild_writer", "audit_garble_descriptors")
CONTROLS = ("audit_control_first", "audit_control_last")
VERDICT = {"audit_garble_descriptors": "CRASH"}  # the others: FAIL
# Kernels whose out[0] counts what got through: ways into the worker or hkcheck, signals delivered.
COUNTED = {"audit_proc_reach": "ways into the worker or hkcheck", "audit_signal_worker": "signals delivered"}
NOBODY = 65534


def run_as(audit, folder, names, extra, tag, uid=None, env_more=None, limit=180):
    """Runs hkcheck on `names` of tests/audit/kernels; as `uid` (via setpriv) when given. Returns
    (Result, test_results.json cases by kernel or None)."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp, out, cache = folder / "tmp", folder / "out", folder / "cache"
    tmp.mkdir(exist_ok=True)
    env = A.hk_env(tag, tmp)
    env.update(env_more or {})
    prefix = ["nice", "-n", "10"]
    if uid is not None:
        for p in (folder, tmp):
            os.chmod(p, 0o777)
        env["HOME"] = str(folder)
        prefix = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] + prefix
    # A shell stands between the audit and hkcheck: a kernel that does reach hkcheck's parent
    # (a broken boundary) signals or writes to it, not to the audit.
    cmd = ["sh", "-c", '"$@"; exit $?', "sh"] + prefix + [audit.hkcheck, "--backend", "host", "--jobs", "1", "--timeout", "5", "--no-repro", "--manifests", str(KERNELS),
                    "--out", str(out), "--cache-dir", str(cache)] + extra + list(names)
    r = A.Result()
    r.cmd = cmd
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=str(A.REPO), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        o, e = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        r.timed_out = True
        A.kill_group(p.pid)
        o, e = p.communicate()
    r.elapsed, r.rc = time.monotonic() - t0, p.returncode
    r.stdout, r.stderr = o.decode("utf-8", "replace"), e.decode("utf-8", "replace")
    (folder / "stderr.txt").write_text(r.stderr)
    (folder / "command.txt").write_text(" ".join(map(A.shlex_quote, cmd)) + f"\n(cwd {A.REPO})\n")
    got, _ = A.results_cases(out)
    return r, ({k: c for (k, _), c in got[1].items()} if got else None)


def first_got(c):
    """out[0] as the kernel left it (the first mismatch of a FAIL whose out[0] was written)."""
    for o in c.get("outputs", []):
        fm = o.get("first_mismatch") or {}
        if o.get("name") == "out" and fm.get("index") == [0]:
            return fm.get("got")
    return None


def probe_attacks(audit, folder, label, extra, uid=None):
    tag = audit.new_tag("verd")
    names = (CONTROLS[0],) + ATTACKS + (CONTROLS[1],)
    r, cases = run_as(audit, folder, names, extra, tag, uid)

    def probe(ok, what, why=""):
        if ok:
            audit.held(what)
        else:
            audit.finding("verdicts", f"{label}: {what}{': ' + why if why else ''}", keep=folder)

    probe(not r.timed_out and r.rc == 0, "the run ends by itself with exit 0 (every attack XFAIL, the controls PASS)",
          f"{A.describe_rc(r.rc)} in {r.elapsed:.0f} s")
    probe(cases is not None, "test_results.json parses")
    for name in names:
        c = (cases or {}).get(name)
        if c is None:
            probe(False, f"{name}: has a record")
            continue
        st, actual = c.get("status"), c.get("actual_status")
        if name in CONTROLS:
            probe(st == "PASS", f"{name} (a correct kernel) PASS", f"{st}: {c.get('message', '')[:160]}")
            continue
        want = VERDICT.get(name, "FAIL")
        probe(st == "XFAIL" and actual == want, f"{name}: {want}, never PASS", f"{st} / {actual}: {c.get('message', '')[:200]}")
        if want == "FAIL":
            bad = [o.get("mismatches", 0) for o in c.get("outputs", [])]
            probe(bad and bad[0] > 0, f"{name}: the FAIL shows its wrong elements", f"mismatches {bad}")
        if name in COUNTED:
            n = first_got(c)
            if name == "audit_signal_worker" and uid == NOBODY and n:
                audit.limit("verdicts", f"{label}: {name}: {n:.0f} {COUNTED[name]} (same user), each ignored: the verdict held")
            else:
                probe(n == 0, f"{name}: no {COUNTED[name]}", f"out[0] = {n}")
    left = A.leftovers(tag)
    probe(not left, "no process outlives the run", "; ".join(f"{pid} {cmd[:80]}" for pid, cmd in left))
    print(f"  {label}: {A.describe_rc(r.rc)} in {r.elapsed:.1f} s", flush=True)


# What each limits.json kernel does when it is allowed to (hkcheck and the kernel share a uid).
SAME_USER = {"audit_stop_worker": ("TIMEOUT", "stops the worker: a TIMEOUT of its own case"),
             "audit_kill_worker": ("CRASH", "kills the worker: a CRASH of its own case"),
             "audit_kill_hkcheck": (None, "kills hkcheck: the run ends there"),
             "audit_write_file": ("FAIL", "writes a file its user may write")}


def probe_limits(audit, folder, label, uid=None):
    for name, (same_user_status, what) in SAME_USER.items():
        tag = audit.new_tag("lim")
        probe_dir = folder / name / "root-only"
        probe_dir.mkdir(parents=True)  # mode 0755: only its owner may write, hkcheck's user (root: not the kernel)
        if uid is not None:
            os.chown(probe_dir, uid, uid)
        probe_file = probe_dir / "probe"
        r, cases = run_as(audit, folder / name, (CONTROLS[0], name, CONTROLS[1]), [], tag, uid,
                          {"HKCHECK_AUDIT_PROBE_FILE": str(probe_file)}, limit=120)
        c = (cases or {}).get(name, {})
        st, actual = c.get("status"), c.get("actual_status") or c.get("status")
        kernel_may = uid is None and os.geteuid() != 0 or uid == NOBODY
        if kernel_may:  # the same user: what it can do is a documented limit, as long as it costs no other case
            got = "the run was killed" if r.rc is not None and r.rc < 0 else f"{st}"
            if same_user_status is None:
                held = r.rc is not None and r.rc < 0
            elif name == "audit_write_file":
                held = probe_file.exists() and actual == "FAIL"
            else:
                held = actual == same_user_status
            if held:
                audit.limit("verdicts", f"{label}: {name} {what} ({got})")
            else:
                audit.finding("verdicts", f"{label}: {name}: expected it {what}; got {got}: {c.get('message', '')[:160]}",
                              keep=folder / name)
            others = [cases.get(k, {}).get("status") for k in CONTROLS] if cases else []
            if same_user_status is not None and others != ["PASS", "PASS"]:
                audit.finding("verdicts", f"{label}: {name} cost other cases: controls {others}", keep=folder / name)
        else:  # root: the kernel runs as nobody and may do none of it
            ok = r.rc == 0 and st == "XFAIL" and actual == "FAIL" and not probe_file.exists()
            if ok:
                audit.held(f"{label}: {name}: not allowed")
            else:
                audit.finding("verdicts", f"{label}: {name}: expected FAIL with nothing done; got {A.describe_rc(r.rc)}, {st} / {actual}"
                              f"{', the file was written' if probe_file.exists() else ''}", keep=folder / name)
        left = A.leftovers(tag)
        if left:
            audit.finding("verdicts", f"{label}: {name}: processes outlive the run: {left[:3]}", keep=folder / name)
        else:
            audit.held()


def part_verdicts(audit, args):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    work = A.fresh_folder(audit, "verdicts")
    me = "root" if os.geteuid() == 0 else "this user"
    probe_attacks(audit, work / "reuse", f"as {me}, worker reuse", [])
    probe_attacks(audit, work / "isolated", f"as {me}, --isolation case", ["--isolation", "case"])
    probe_limits(audit, work / "limits", f"as {me}")
    if os.geteuid() == 0 and shutil.which("setpriv"):
        os.chmod(work, 0o755)
        probe_attacks(audit, work / "user-reuse", "as an unprivileged user, worker reuse", [], uid=NOBODY)
        probe_limits(audit, work / "user-limits", "as an unprivileged user", uid=NOBODY)
    elif os.geteuid() == 0:
        print("  (no setpriv: the attacks were not run as an unprivileged user)", flush=True)
    print("  the parent's re-check of each record (a PASS its figures contradict is an ERROR) cannot be reached by a kernel "
          "any more: ctest VerdictConsistency.* and RunnerPool.APassItsOwnRecordContradictsIsAHarnessError test it", flush=True)
    print(f"part verdicts: {audit.passed - p0} held, {audit.failed - f0} findings, {time.monotonic() - t0:.0f} s", flush=True)
