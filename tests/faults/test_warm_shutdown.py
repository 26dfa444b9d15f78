"""Warm shutdown (plain SIGTERM, no REMAP_SIGTERM) in seconds, not a slice length: the worker
asks its running slice to end early (:mod:`fuzzfarm.farm.shutdown`); the slice keeps its crashes
and corpus, counts the time it ran, enqueues the rest of the job as its next slice and is
acknowledged; the worker exits; the next worker finishes the job, with the job's fuzzing time
counted once."""

from __future__ import annotations

import os
import signal
import time

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config
from fuzzfarm.farm.embedded import Worker

DURATION_S = 24.0


def test_sigterm_ends_the_running_slice_early_keeps_its_crashes_and_requeues_the_rest(fault_farm, tmp_path):
    # a database of its own (the fault farm's workers serve database 0): these workers are its only ones
    url = fault_farm.url.rsplit("/", 1)[0] + "/2"
    # one slice for the whole job: without the early stop the worker would wait all of it out
    env = faultlib.worker_env(FUZZFARM_MAX_SLICE_S=str(int(DURATION_S)), FUZZFARM_VISIBILITY_TIMEOUT="120")
    workers = []
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        try:
            w = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "fuzz-1.log")).start()
            workers.append(w)
            w.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=DURATION_S)
            faultlib.wait_until(lambda: st.r.scard(S.P + f"campaign:{cid}:crashes") >= 1
                                and faultlib.fuzzers(cid), 60, "the job fuzzing and a crash kept")
            t0 = time.monotonic()
            os.kill(w.proc.pid, signal.SIGTERM)
            # it exits long before its slice would have ended (the slice had ~DURATION_S to go)
            w.proc.wait(DURATION_S / 2)
            print(f"warm shutdown: worker exited {time.monotonic() - t0:.1f} s after SIGTERM")
            kept = st.r.scard(S.P + f"campaign:{cid}:crashes")
            job = st.job(cid, 0)
            assert job["state"] == S.JOB_RUNNING and int(job["slice"]) == 1, job  # not done: the rest is queued
            ran = float(job["elapsed_base"])
            assert 0 < ran < DURATION_S / 2, job
            assert st.r.llen(config.FUZZ_QUEUE) == 1 and st.r.hlen("unacked") == 0  # acked; the next slice waits
            assert "the rest is requeued" in w.log_text()
            assert not [p for p in faultlib.fuzzers(cid) if faultlib.alive(p)]
            # the next worker runs the rest; the crashes the first slice kept are still there
            w2 = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "fuzz-2.log")).start()
            workers.append(w2)
            faultlib.wait_until(lambda: st.job(cid, 0).get("state") in S.JOB_FINAL, DURATION_S * 2,
                                "the job to finish on the next worker")
            job = st.job(cid, 0)
            assert job["state"] == S.JOB_DONE, job
            assert abs(float(job["elapsed_base"]) - DURATION_S) < 1.0, job  # its time counted once
            assert st.r.scard(S.P + f"campaign:{cid}:crashes") >= kept
        finally:
            for x in workers:
                x.stop()
