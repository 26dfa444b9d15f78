"""A task message lost on the wire (popped by a BRPOP whose reply never arrived) is published again
by the janitor (``fuzzfarm/farm/rescue.py``), and only then: a message really queued or unacked, a
slice holding its claim or lease, or a first sighting within the grace, is left alone.

Real redis-server (the fault farm's, a database no worker serves), real kombu messages published
by the farm's own enqueue functions."""

from __future__ import annotations

import time

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys
from fuzzfarm.farm import lease, rescue


def _db(fault_farm, n: int) -> str:
    return fault_farm.url.rsplit("/", 1)[0] + f"/{n}"


def _campaign(st) -> str:
    cid = st.create_campaign({"harness": "ff-crashy", "variant": "buggy", "strategy": "bytes", "jobs": 2,
                              "duration_s": 8.0, "harness_hash": "h" * 64, "version": "0"})
    return cid


def test_a_job_and_an_intake_without_a_message_are_published_again_after_the_grace(fault_farm):
    from fuzzfarm.farm import tasks

    with faultlib.publishing_to(_db(fault_farm, 7)) as st:
        st.r.flushdb()
        cid = _campaign(st)
        camp = st.campaign(cid)
        from fuzzfarm.farm import jobs
        for n in range(2):
            tasks.enqueue_fuzz(jobs.job_spec(cid, n, camp), 4.0)
        sha, _ = st.report_crash(cid, 0, "ff-crashy", "buggy", b"boom")
        tasks.enqueue_intake(cid, "ff-crashy", "buggy", sha)
        # every message is queued: nothing is an orphan
        assert rescue.orphans(st) == ([], [])
        # a worker pops job 1's message and the intake's, and the replies are lost: gone
        st.r.delete("fuzz", "collect")
        for k in st.r.scan_iter(match="fuzz*"):
            if st.r.type(k) == "list":
                st.r.delete(k)
        tasks.enqueue_fuzz(jobs.job_spec(cid, 0, camp), 4.0)  # job 0's message is there
        assert rescue.orphans(st) == ([(cid, 1, 0)], [(cid, sha)])
        fuzz, intakes = [], []

        def sweep(now):
            return rescue.sweep(st, enqueue_fuzz=lambda spec, s: fuzz.append((spec, s)),
                                enqueue_intake=lambda *a: intakes.append(a), now=now)

        t = time.time()
        assert sweep(t) == [] and fuzz == []  # first sighting
        assert sweep(t + rescue.GRACE_S / 2) == []  # within the grace
        done = sweep(t + rescue.GRACE_S + 0.1)
        assert sorted(done) == [f"intake:{cid}:{sha}", f"job:{cid}:1:0"]
        assert [(f["campaign"], f["job"], f["slice"]) for f, _ in fuzz] == [(cid, 1, 0)]
        assert intakes == [(cid, "ff-crashy", "buggy", sha)]
        assert st.r.hlen(keys.orphans()) == 0


def test_a_running_slice_a_claimed_slice_and_a_settled_campaign_are_no_orphans(fault_farm):
    with faultlib.publishing_to(_db(fault_farm, 7)) as st:
        st.r.flushdb()
        cid = _campaign(st)
        # job 0 runs slice 2 (its lease is live), job 1's slice 1 was claimed and is starting
        st.update_job(cid, 0, state=S.JOB_RUNNING, slice=2)
        assert st.acquire_lease(lease.claim_name(cid, 0, 2), "t0", 60)
        assert lease.hold(st, cid, 0, 2, "t0", {"execs": 1})
        st.update_job(cid, 1, state=S.JOB_RUNNING, slice=1)
        assert st.acquire_lease(lease.claim_name(cid, 1, 1), "t1", 60)
        assert rescue.orphans(st) == ([], [])
        # finished jobs need no message; a campaign given its TTL (settled) is not looked at
        st.release_lease(lease.claim_name(cid, 1, 1), "t1")
        assert rescue.orphans(st)[0] == [(cid, 1, 1)]
        st.update_job(cid, 1, state=S.JOB_DONE)
        assert rescue.orphans(st)[0] == []
        st.r.hset(S.P + f"campaign:{cid}", "expires_at", "1")
        st.r.delete(S.P + f"lease:{lease.claim_name(cid, 0, 2)}")
        st.r.delete(keys.leases())
        assert rescue.orphans(st) == ([], [])
