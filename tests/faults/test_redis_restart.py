"""Redis restarted mid-campaign (AOF on): buckets, artifacts, corpus and crash inputs survive; the
fuzz and collect workers reconnect by themselves and the campaign finishes; while Redis is down
the CLI says so at once instead of hanging."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import faultlib
from fuzzfarm.farm import store as S


def _snapshot(st, cid: str) -> dict:
    bids = st.campaign_bucket_ids(cid)
    return {"buckets": {b: st.bucket(b)["signature"] for b in bids},
            "artifacts": {b: st.artifact(b) for b in bids},
            "corpus": set(st.r.hkeys(S.P + "corpus:ff-crashy")),
            "crashes": set(st.r.smembers(S.P + f"campaign:{cid}:crashes"))}


def _cli(url: str, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "FUZZFARM_REDIS_URL": url}
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True, timeout=60,
                       env=env)
    return p, time.monotonic() - t0


def test_redis_restart_mid_campaign(fault_farm, fst):
    cid = faultlib.submit(fst, "ff-crashy", jobs=2, duration=10)
    # mid-campaign: a bucket with its artifact, a corpus, jobs still fuzzing
    faultlib.wait_until(lambda: any(fst.artifact(b) for b in fst.campaign_bucket_ids(cid))
                        and fst.corpus_size("ff-crashy") > 0, 60, "a first bucket with an artifact and a corpus")
    assert fst.campaign_summary(cid)["status"] == "running"
    before = _snapshot(fst, cid)
    srv = fault_farm.redis
    t0 = time.monotonic()
    srv.stop()  # SIGTERM: redis-server flushes the AOF and exits
    try:
        p, took = _cli(fault_farm.url, "status", cid)
        assert p.returncode == 2 and took < 15, (p.returncode, took, p.stderr)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and "cannot reach Redis" in lines[0] and "start redis-server" in lines[0], p.stderr
        time.sleep(max(0.0, 3.0 - (time.monotonic() - t0)))  # a few seconds of outage, jobs running
    finally:
        srv.start()
    outage = time.monotonic() - t0
    # everything written before the restart is there (AOF)
    after = _snapshot(fst, cid)
    assert after["buckets"] == before["buckets"]
    # triage goes on until SIGTERM, so an artifact may have been rewritten by a later triage step
    # (fix check, minimized trace) between the snapshot and the stop: every file stays, the crash
    # input it was made from is unchanged
    for bid, files in before["artifacts"].items():
        if files is None:
            continue
        kept = after["artifacts"][bid]
        assert kept is not None and set(files) <= set(kept), (bid, sorted(files), kept and sorted(kept))
        assert kept.get("input.orig") == files.get("input.orig"), bid
    assert before["corpus"] <= after["corpus"]
    assert before["crashes"] <= after["crashes"]
    # the workers reconnect and the campaign finishes, every crash triaged: also those found
    # after the restart (both queues are served again)
    faultlib.wait_until(lambda: faultlib.campaign_settled(fst, cid), 180, "the campaign to finish after the restart")
    s = fst.campaign_summary(cid)
    assert faultlib.job_states(fst, cid) == [S.JOB_DONE] * 2, s["errors"]
    assert s["intaken"] == s["crashes"] and s["buckets"] == 1
    assert s["crashes"] > len(before["crashes"]), "no crash was found after the restart"
    assert all(w.alive() for w in fault_farm.workers)
    for w in fault_farm.workers:
        assert w.log_text().count("Connected to redis") >= 2, f"{w.name} did not reconnect"
    # and once it has settled, `fuzzfarm gc` leaves only its buckets, groups and artifacts
    faultlib.wait_until(lambda: faultlib.drained(fst), 30, "the queues to drain")
    p = faultlib.gc_cli(fault_farm.url)
    assert p.returncode == 0 and f"removed campaign {cid}" in p.stdout, p.stdout + p.stderr
    assert faultlib.left_after_gc(fst) == []
    assert fst.bucket(after["buckets"] and next(iter(after["buckets"])))
    print(f"redis restart: outage {outage:.1f} s; survived: {len(after['buckets'])} bucket(s), "
          f"{len(after['corpus'])} corpus inputs, {len(after['crashes'])} crashes")
