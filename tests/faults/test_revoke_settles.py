"""A fuzz slice revoked from outside (``celery control terminate SIGTERM ID``: what Flower's
*terminate* sends) settles: its job ends ``cancelled`` with the reason, the crashes it kept
stay, and the campaign finishes instead of showing ``running`` forever
(:mod:`fuzzfarm.farm.settle`)."""

from __future__ import annotations

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import Worker


def test_a_terminated_slice_ends_its_job_cancelled_and_the_campaign_finishes(fault_farm, tmp_path):
    url = fault_farm.url.rsplit("/", 1)[0] + "/3"  # a database of its own, served by this test's worker
    env = faultlib.worker_env(FUZZFARM_MAX_SLICE_S="60", FUZZFARM_VISIBILITY_TIMEOUT="120")
    w = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "fuzz.log")).start()
    try:
        with faultlib.publishing_to(url) as st:
            st.r.flushdb()
            w.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=60)
            faultlib.wait_until(lambda: st.r.scard(S.P + f"campaign:{cid}:crashes") >= 1 and faultlib.fuzzers(cid),
                                60, "the slice fuzzing and a crash kept")
            holder = st.r.get(S.P + f"lease:slice:{cid}:0:0")  # the slice claim: task id, host, pid
            assert holder
            from fuzzfarm.farm.lease import owner_task
            task_id = owner_task(holder)
            from fuzzfarm.farm import app
            app.control.revoke(task_id, terminate=True)
            faultlib.wait_until(lambda: st.job(cid, 0).get("state") in S.JOB_FINAL, 30, "the revoked job to settle")
            job = st.job(cid, 0)
            assert job["state"] == S.JOB_CANCELLED and "revoke" in job["error"], job
            assert st.campaign_summary(cid)["status"] in S.CAMPAIGN_FINAL
            assert st.r.scard(S.P + f"campaign:{cid}:crashes") >= 1  # what it found is kept
            faultlib.wait_until(lambda: not [p for p in faultlib.fuzzers(cid) if faultlib.alive(p)], 15,
                                "its fuzzer to be gone")
            assert w.alive()  # the worker goes on
    finally:
        w.stop()
