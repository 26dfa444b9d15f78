"""Fleet restart (docs/TRAPS.md#g16, docs/TRAPS.md#g14): stopping a fuzz worker with SIGQUIT, or SIGTERM under
``REMAP_SIGTERM=SIGQUIT`` (what deploy/ configures), puts its unfinished jobs back on the queue at
once, no fuzzer outlives it, and the jobs finish on the next worker. Restarts are not deaths: a
job interrupted by three restarts in a row is not mistaken for a poison pill."""

from __future__ import annotations

import os
import signal
import time

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config
from fuzzfarm.farm.embedded import Worker


def _running_with_fuzzers(st, cid, jobs):
    return (faultlib.job_states(st, cid) == [S.JOB_RUNNING] * jobs
            and len({faultlib.ppid_of(f) for f in faultlib.fuzzers(cid)}) == jobs)


def _stop(worker: Worker, sig: int, st, cid: str, jobs: int) -> dict:
    """Signal the worker; measure how fast it exits and its jobs are back on the queue."""
    fuzzers = faultlib.fuzzers(cid)
    pools = faultlib.worker_pool_children(worker.proc.pid)
    t0 = time.monotonic()
    os.kill(worker.proc.pid, sig)
    worker.proc.wait(30)
    exited = time.monotonic() - t0
    seen = {}

    def back():
        seen.update(queued=st.r.llen(config.FUZZ_QUEUE), unacked=st.r.hlen("unacked"),
                    states=faultlib.job_states(st, cid))
        return seen["queued"] == jobs and seen["unacked"] == 0

    try:
        faultlib.wait_until(back, 15, "the interrupted jobs back on the fuzz queue")
    except AssertionError as e:
        raise AssertionError(f"{e}: {seen}") from None
    requeued = time.monotonic() - t0
    left = [p for p in fuzzers + pools if faultlib.alive(p)]
    worker.stop()
    return {"exited_s": exited, "requeued_s": requeued, "left": left}


def test_sigquit_and_remapped_sigterm_requeue_at_once_and_leave_no_fuzzer(fault_farm):
    # a Redis database of its own (the fault farm's workers serve database 0): this test's
    # workers are the only ones on its fuzz queue
    url = fault_farm.url.rsplit("/", 1)[0] + "/1"
    jobs = 2
    # one slice per job, long enough that every stop lands inside it; with MAX_DELIVERIES=1 a
    # single redelivery counted as a death would fail the job
    env = {"FUZZFARM_MAX_SLICE_S": "6", "FUZZFARM_MAX_DELIVERIES": "1"}
    runs, workers = [], []
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=jobs, duration=6)
        try:
            for n, (sig, remap) in enumerate([(signal.SIGQUIT, {}), (signal.SIGTERM, {"REMAP_SIGTERM": "SIGQUIT"})]):
                w = Worker(url, ["fuzz"], concurrency=jobs, env=faultlib.worker_env(**env, **remap),
                           logfile=os.path.join(fault_farm.workdir, f"fleet-{n}.log")).start()
                workers.append(w)
                w.wait_ready()
                # stop it while the same first slice of each job runs (each restart interrupts it again)
                faultlib.wait_until(lambda: _running_with_fuzzers(st, cid, jobs), 60, "both jobs fuzzing")
                time.sleep(0.3)
                r = _stop(w, sig, st, cid, jobs)
                runs.append(r)
                assert r["left"] == [], f"processes outlived the worker: {r['left']}"
                assert r["exited_s"] < config.celery_config(url)["worker_soft_shutdown_timeout"] + 8, r
                assert r["requeued_s"] < 15, r
                assert "not counted as deaths" in w.log_text()
            # a new worker finishes the campaign; interruptions of one message are no poison pill
            w = Worker(url, ["fuzz"], concurrency=jobs, env=faultlib.worker_env(**env),
                       logfile=os.path.join(fault_farm.workdir, "fleet-final.log")).start()
            workers.append(w)
            w.wait_ready()
            faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), 90, "the campaign to finish")
            assert faultlib.job_states(st, cid) == [S.JOB_DONE] * jobs, [j.get("error") for j in st.jobs(cid)]
        finally:
            for w in workers:
                faultlib.hard_stop(w)  # idle by now (or already stopped)
            st.r.flushdb()
    print("fleet restarts:", [{k: (round(v, 1) if isinstance(v, float) else v) for k, v in r.items()} for r in runs])
