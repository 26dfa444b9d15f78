"""The collector killed while minimizing: the bucket and its inputs stay; the minimize task comes
back (same message, same lease owner) and minimization restarts and completes; nothing is
counted twice."""

from __future__ import annotations

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import tasks


def _request(pid: int) -> dict:
    """The child's request (fuzzfarm/harness/child.py: request.json in its working directory)."""
    import json
    try:
        with open(f"/proc/{pid}/cwd/request.json") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _minimizer(collector_pid: int, signature: str = ""):
    """(pool process, minimizer child) of the collect worker ``collector_pid`` minimizing
    ``signature``. Only that worker's: another pytest process on the machine (a second copy of
    the suite, another checkout's CI) runs this very test on the same harness and signature, and
    killing its pool process failed both (this one's log had no SIGKILL)."""
    for pid in faultlib.processes("fuzzfarm.collector.minimize", "--request="):
        req = _request(pid)
        if req.get("harness") != "ff-crashy" or not str(req.get("expect") or "").startswith(signature):
            continue
        pool = faultlib.ppid_of(pid)
        if "celery" in faultlib.cmdline(pool) and faultlib.ppid_of(pool) == collector_pid:
            return pool, pid
    return None


def test_collector_pool_process_killed_while_minimizing(fault_farm, fst):
    cid = fst.create_campaign({"harness": "ff-crashy", "variant": "slow", "strategy": "bytes", "jobs": 0,
                               "duration_s": 1.0, "harness_hash": faultlib.harness_hash("ff-crashy"),
                               "version": "0"})
    data = b"C" + bytes(range(128))  # 129 bytes, every run 0.2 s: minimizing takes a few seconds
    sha, new = fst.report_crash(cid, 0, "ff-crashy", "slow", data)  # what a fuzz job does on a crash
    assert new
    tasks.enqueue_intake(cid, "ff-crashy", "slow", sha)
    # The farm is shared with other fault tests: wait for *this* campaign's bucket to be
    # minimizing and pick the minimizer working on its signature.
    collector = next(w for w in fault_farm.workers if w.queues == ["collect"])

    def minimizing():
        ids = fst.campaign_bucket_ids(cid)
        if not ids or fst.bucket(ids[0])["state"] != S.B_MINIMIZING:
            return None
        found = _minimizer(collector.proc.pid, fst.bucket(ids[0])["signature"])
        return (ids[0], *found) if found else None

    bid, pool, child = faultlib.wait_until(minimizing, 60, "the minimizer to run")
    sig = fst.bucket(bid)["signature"]
    faultlib.kill(pool)
    faultlib.wait_until(lambda: not faultlib.alive(child), 10, "the minimizer to die with its worker process")
    # the bucket, its input and its first (unminimized) artifact are kept
    b = fst.bucket(bid)
    assert b["state"] in (S.B_NEW, S.B_MINIMIZING) and int(b["count"]) == 1
    assert fst.artifact(bid) is not None
    # minimization restarts in a new pool process and the triage completes
    faultlib.wait_until(lambda: (_minimizer(collector.proc.pid, sig) or (0,))[0] not in (0, pool), 60,
                        "minimization to restart")
    faultlib.wait_until(lambda: fst.bucket(bid)["state"] in S.BUCKET_FINAL, 120, "the bucket's triage to finish")
    b = fst.bucket(bid)
    assert b["state"] == S.B_DONE, b.get("error")
    assert b["minimized_size"] < len(data) and int(b["count"]) == 1 and fst.bucket_inputs(bid) == {sha}
    assert b["reproducible"] is True
    assert "signal 9 (SIGKILL)" in collector.log_text()
    print(f"collector kill: bucket {bid} minimized {len(data)} -> {b['minimized_size']} bytes after the restart")
