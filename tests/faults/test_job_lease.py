"""A fuzz job on a box that vanished resumes on another worker within seconds, not after the
visibility timeout (``fuzzfarm/farm/lease.py``): its slice's lease ends, a janitor requeues the
slice, ``status`` shows the job ``lost → requeued``, and the job ends done with its fuzzing time
counted once. A box that comes back (frozen, then thawed) finds its lease taken and stops its
slice without recording anything.

The visibility timeout here is 300 s, so a recovery under 60 s is the janitor's, not Redis's."""

from __future__ import annotations

import os
import signal
import time

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys
from fuzzfarm.farm import lease
from fuzzfarm.farm.embedded import Worker

DURATION_S = 8.0
LEASE_TTL_S = 4


@pytest.mark.parametrize("fault", ["sigkill", "freeze"])
def test_a_job_on_a_lost_box_resumes_on_another_worker_and_runs_once(fault_farm, tmp_path, fault):
    url = fault_farm.url.rsplit("/", 1)[0] + "/3"  # a database of its own: these are its only workers
    env = faultlib.worker_env(FUZZFARM_MAX_SLICE_S="30", FUZZFARM_VISIBILITY_TIMEOUT="300",
                              FUZZFARM_LEASE_TTL_S=str(LEASE_TTL_S), FUZZFARM_JANITOR_INTERVAL_S="1")
    workers = []
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        try:
            a = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "a.log"), name="box-a").start()
            workers.append(a)
            a.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=DURATION_S)
            faultlib.wait_until(lambda: int(st.job(cid, 0).get("execs", 0) or 0) > 0, 60, "the job fuzzing on box a")
            assert st.job(cid, 0)["worker"].startswith("box-a@")
            b = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "b.log"), name="box-b").start()
            workers.append(b)
            b.wait_ready()
            assert st.job(cid, 0)["worker"].startswith("box-a@")  # b is idle: a still runs the job

            t0 = time.monotonic()
            os.killpg(a.proc.pid, signal.SIGKILL if fault == "sigkill" else signal.SIGSTOP)
            job = faultlib.wait_until(lambda: (j := st.job(cid, 0)).get("recovery") and j, 60,
                                      "the janitor to requeue the lost job")
            lost_s = time.monotonic() - t0
            assert job["recovery"] == lease.RECOVERY and job["lost_worker"].startswith("box-a@"), job
            if job["state"] == S.JOB_QUEUED:  # (box b may have started it already)
                assert lease.state_label(job).startswith("lost → requeued (was on box-a@"), job
                assert int(job.get("execs", 0)) == 0 and int(job.get("execs_base", 0) or 0) == 0, job
            faultlib.wait_until(lambda: st.job(cid, 0).get("worker", "").startswith("box-b@")
                                and int(st.job(cid, 0).get("execs", 0) or 0) > 0, 60, "box b fuzzing the job")
            resumed_s = time.monotonic() - t0
            print(f"{fault}: lost → requeued after {lost_s:.1f} s, fuzzing again on box b after {resumed_s:.1f} s")
            assert resumed_s < 60

            if fault == "freeze":  # the box comes back while b runs its slice
                os.killpg(a.proc.pid, signal.SIGCONT)
                # at its next stats tick, or at its slice's end if its time ran out while frozen
                faultlib.wait_until(lambda: "nothing recorded" in a.log_text(), 30,
                                    "the thawed box to notice its lease is gone")
                assert st.job(cid, 0).get("worker", "").startswith("box-b@")

            faultlib.wait_until(lambda: st.job(cid, 0).get("state") in S.JOB_FINAL, DURATION_S * 3,
                                "the job to finish on box b")
            job = st.job(cid, 0)
            assert job["state"] == S.JOB_DONE, job
            assert int(job["lost"]) == 1, job
            # its fuzzing time and execs counted once: only box b's complete slice
            assert abs(float(job["elapsed_base"]) - DURATION_S) < 1.0, job
            assert int(job["execs"]) == 0 and int(job["execs_base"]) > 0, job
            assert st.r.zcard(keys.leases()) == 0
            if fault == "freeze":
                assert "its end is not recorded" not in a.log_text()  # it stopped at a tick, long before
        finally:
            for w in workers:
                faultlib.hard_stop(w)
