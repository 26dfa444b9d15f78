"""Duplicate delivery changes no count: a fuzz-slice message delivered again after it finished,
every crash report delivered three times (sequentially and concurrently), and triage steps
delivered again after the bucket is done, on real workers."""

from __future__ import annotations

import threading
import time

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import jobs, tasks

VOLATILE = {"updated"}


def _counts(st, cid: str) -> dict:
    s = st.campaign_summary(cid)
    out = {"summary": {k: s[k] for k in ("execs", "crashes", "intaken", "buckets", "status", "jobs_done")},
           "jobs": [{k: v for k, v in j.items() if k not in VOLATILE} for j in st.jobs(cid)]}
    for bid in st.campaign_bucket_ids(cid):
        b = st.bucket(bid)
        out[bid] = {"count": b["count"], "inputs": st.bucket_inputs(bid), "state": b["state"],
                    "artifact": st.artifact(bid), "minimized_size": b.get("minimized_size")}
    return out


def test_duplicate_deliveries_change_no_count(fault_farm, fst):
    # crash reports duplicated while the campaign runs: two extra intakes for each, concurrently
    cid = faultlib.submit(fst, "ff-crashy", jobs=1, duration=4)
    stop = threading.Event()
    dup_sent = set()

    def duplicate_reports():
        while not stop.is_set():
            for sha in fst.r.smembers(S.P + f"campaign:{cid}:crashes") - dup_sent:
                dup_sent.add(sha)
                for _ in range(2):
                    tasks.enqueue_intake(cid, "ff-crashy", "buggy", sha)
            time.sleep(0.05)

    t = threading.Thread(target=duplicate_reports, daemon=True)
    t.start()
    try:
        faultlib.wait_until(lambda: faultlib.campaign_settled(fst, cid) and faultlib.drained(fst), 120,
                            "the campaign (with duplicated crash reports) to settle")
    finally:
        stop.set()
        t.join()
    assert dup_sent, "no crash was reported: nothing was duplicated"
    before = _counts(fst, cid)
    (bid,) = fst.campaign_bucket_ids(cid)
    assert before[bid]["count"] == len(before[bid]["inputs"]) == len(dup_sent) == before["summary"]["crashes"]
    assert before[bid]["state"] == S.B_DONE

    # every message again, after the fact: the fuzz slice, each crash report, each triage step
    spec = jobs.job_spec(cid, 0, fst.campaign(cid))
    tasks.enqueue_fuzz(spec, 4.0)
    tasks.enqueue_fuzz(spec, 4.0)
    for sha in dup_sent:
        tasks.enqueue_intake(cid, "ff-crashy", "buggy", sha)
    for step in (tasks.minimize, tasks.verify, tasks.fix_check):
        step.apply_async(args=[bid])
    time.sleep(1.0)
    faultlib.wait_until(lambda: faultlib.drained(fst), 60, "the duplicates to be consumed")
    time.sleep(1.0)
    assert _counts(fst, cid) == before
    assert faultlib.fuzzers(cid) == []  # the duplicate slice never started a fuzzer
    log = fault_farm.workers[0].log_text()
    assert "duplicate delivery" in log
