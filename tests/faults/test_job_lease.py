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
            # Both boxes are up before the job is submitted: one takes it, the other stays idle.
            # (Box b used to be started once box a was fuzzing: on a loaded machine its start-up
            # outlasted a's whole slice, and the freeze then met a's slice end, its upload window
            # or the finished job instead of a running slice.)
            for name in ("box-a", "box-b"):
                w = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / f"{name}.log"), name=name).start()
                workers.append(w)
            for w in workers:
                w.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=DURATION_S)
            job = faultlib.wait_until(lambda: (j := st.job(cid, 0)) and int(j.get("execs", 0) or 0) > 0 and j,
                                      60, "the job fuzzing on a box")
            a, b = workers if job["worker"].startswith("box-a@") else workers[::-1]
            lost, other = job["worker"].split("@")[0], ("box-b" if job["worker"].startswith("box-a@") else "box-a")

            t0 = time.monotonic()
            os.killpg(a.proc.pid, signal.SIGKILL if fault == "sigkill" else signal.SIGSTOP)
            # What earlier slices of the job counted (a slice whose fuzzer died early under load
            # ends and the job goes on in its next slice): the lost slice must add nothing to it.
            base = st.job(cid, 0)
            assert base["worker"].startswith(lost + "@"), base  # the box stopped is the one running it
            job = faultlib.wait_until(lambda: (j := st.job(cid, 0)).get("recovery") and j, 60,
                                      "the janitor to requeue the lost job")
            lost_s = time.monotonic() - t0
            assert job["recovery"] == lease.RECOVERY and job["lost_worker"].startswith(lost + "@"), job
            if job["state"] == S.JOB_QUEUED:  # (the other box may have started it already)
                assert lease.state_label(job).startswith(f"lost → requeued (was on {lost}@"), job
                assert int(job.get("execs", 0)) == 0, job
                assert int(job.get("execs_base", 0) or 0) == int(base.get("execs_base", 0) or 0), (base, job)
            faultlib.wait_until(lambda: st.job(cid, 0).get("worker", "").startswith(other + "@")
                                and int(st.job(cid, 0).get("execs", 0) or 0) > 0, 60, "the other box fuzzing the job")
            resumed_s = time.monotonic() - t0
            print(f"{fault}: lost → requeued after {lost_s:.1f} s, fuzzing again on {other} after {resumed_s:.1f} s")
            assert resumed_s < 60

            if fault == "freeze":  # the box comes back while the other runs its slice
                os.killpg(a.proc.pid, signal.SIGCONT)
                # at its next stats tick, or at its slice's end if its time ran out while frozen
                try:
                    faultlib.wait_until(lambda: "nothing recorded" in a.log_text(), 30,
                                        "the thawed box to notice its lease is gone")
                except AssertionError as e:  # what the thawed box did instead
                    raise AssertionError(f"{e}\n{lost}'s log:\n{a.log_text()[-4000:]}") from None
                assert st.job(cid, 0).get("worker", "").startswith(other + "@")

            # the rest of the job on the other box: a fresh fuzzer's start (seconds on a loaded
            # machine), its slice, the corpus upload; 90 s bounds a hang, it times nothing
            try:
                faultlib.wait_until(lambda: st.job(cid, 0).get("state") in S.JOB_FINAL, 90,
                                    "the job to finish on the other box")
            except AssertionError as e:
                raise AssertionError(f"{e}\njob: {st.job(cid, 0)}\n{other}'s log:\n{b.log_text()[-4000:]}") from None
            job = st.job(cid, 0)
            assert job["state"] == S.JOB_DONE, job
            assert int(job["lost"]) == 1, job
            # its fuzzing time and execs counted once: the slices that ended, not the lost one
            assert abs(float(job["elapsed_base"]) - DURATION_S) < 1.0, job
            assert int(job["execs"]) == 0 and int(job["execs_base"]) > int(base.get("execs_base", 0) or 0), job
            assert st.r.zcard(keys.leases()) == 0
            if fault == "freeze":
                assert "its end is not recorded" not in a.log_text()  # it stopped at a tick, long before
        finally:
            for w in workers:
                faultlib.hard_stop(w)
