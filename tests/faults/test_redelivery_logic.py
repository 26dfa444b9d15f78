"""Task logic of a redelivered fuzz slice (real Redis, engine stand-in): a worker killed between
keeping a crash and enqueueing its intake loses nothing, and a duplicate of a finished slice
changes no count."""

from __future__ import annotations

import os
import types

import pytest

from fuzzfarm import harness as H
from fuzzfarm.engine import CrashReport, JobResult, JobStats
from fuzzfarm.farm import jobs


class Killed(BaseException):
    """The pool process dies (SIGKILL) at this point."""


def _engine(crash: bytes | None = None, execs: int = 100):
    def run_fuzz_job(*, on_crash, on_stats, **kw):
        if crash is not None:
            on_crash(CrashReport(data=crash, artifact="crash", log_tail=""))
        return JobResult(stats=JobStats(execs=execs, crashes=int(crash is not None), elapsed_s=1.0),
                         new_corpus=[b"seed"], crashes=int(crash is not None), restarts=0)
    return types.SimpleNamespace(run_fuzz_job=run_fuzz_job)


@pytest.fixture
def camp(store):
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 2.0, "harness_hash": H.get("checker").source_hash(),
                                 "version": "0"})
    return cid, jobs.job_spec(cid, 0, store.campaign(cid))


def test_killed_between_keeping_a_crash_and_enqueueing_its_intake(store, camp):
    cid, spec = camp

    def dies(*a):
        raise Killed()

    with pytest.raises(Killed):
        jobs.run_slice(store, spec, enqueue_intake=dies, enqueue_next=lambda *a: None, engine=_engine(b"CRASH"))
    assert store.r.scard(f"fuzzfarm:campaign:{cid}:crashes") == 1  # kept before the kill
    queued = []
    # the redelivered slice happens not to find that input again
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: queued.append(a), enqueue_next=lambda *a: None,
                          engine=_engine(None)) == "done"
    assert [q[3] for q in queued] == store.pending_intakes(cid) and len(queued) == 1


def test_first_delivery_of_a_later_slice_is_not_a_redelivery(store, camp):
    cid, spec = camp
    store.report_crash(cid, 0, "checker", "buggy", b"X")  # pending, e.g. queued for intake right now
    queued, nxt = [], []
    spec = {**spec, "duration_s": 3 * 600.0}
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: queued.append(a),
                          enqueue_next=lambda s, d: nxt.append(s), engine=_engine(None)) == "next"
    assert jobs.run_slice(store, nxt[0], enqueue_intake=lambda *a: queued.append(a),
                          enqueue_next=lambda s, d: nxt.append(s), engine=_engine(None)) == "next"
    assert queued == []


def test_duplicate_of_a_finished_slice_changes_no_count(store, camp):
    cid, spec = camp
    queued = []
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: queued.append(a), enqueue_next=lambda *a: None,
                          engine=_engine(b"CRASH", execs=1234)) == "done"
    before = (store.job(cid, 0), store.campaign_summary(cid))
    for _ in range(2):
        assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: queued.append(a),
                              enqueue_next=lambda *a: None, engine=_engine(b"CRASH2", execs=99)) == "skipped"
    assert (store.job(cid, 0), store.campaign_summary(cid)) == before
    assert len(queued) == 1 and before[1]["execs"] == 1234 and before[1]["crashes"] == 1


def test_killed_between_recording_the_slice_end_and_enqueueing_the_next(store, camp):
    cid, spec = camp
    spec = {**spec, "duration_s": 3 * 600.0}

    def dies(*a):
        raise Killed()

    with pytest.raises(Killed):
        jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=dies, engine=_engine(None),
                       owner="t1")
    assert store.job(cid, 0)["slice"] == 1  # slice 0 recorded its end, slice 1 was never enqueued
    nxt = []
    # the redelivered message of slice 0 (same task id) puts slice 1 on the queue
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, d: nxt.append(s),
                          engine=_engine(None), owner="t1") == "skipped"
    assert [s["slice"] for s in nxt] == [1]
    # once slice 1 has started, another copy of slice 0 enqueues nothing
    assert jobs.run_slice(store, nxt[0], enqueue_intake=lambda *a: None, enqueue_next=lambda s, d: nxt.append(s),
                          engine=_engine(None), owner="t2") == "next"
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, d: nxt.append(s),
                          engine=_engine(None), owner="t1") == "skipped"
    assert [s["slice"] for s in nxt] == [1, 2]


def test_two_messages_for_one_slice_run_it_once(store, camp):
    cid, spec = camp
    assert store.acquire_lease(f"slice:{cid}:0:0", "first-message", 60)  # running now elsewhere
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                          engine=_engine(None), owner="second-message") == "skipped"
    assert store.job(cid, 0)["state"] == "queued"
    # the holder's own redelivery (same task id) takes its claim back and runs
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                          engine=_engine(None), owner="first-message") == "done"


def test_a_killed_slice_leaves_no_work_directory_behind(store, camp, tmp_path, monkeypatch):
    import tempfile
    cid, spec = camp
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / f"fuzzfarm-{cid}-0-killedrun"
    (stale / "corpus").mkdir(parents=True)
    other_job = tmp_path / f"fuzzfarm-{cid}-1-running"
    other_job.mkdir()
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                          engine=_engine(None)) == "done"
    assert not stale.exists() and other_job.exists()
    assert [p.name for p in tmp_path.iterdir()] == [other_job.name]


def test_a_frozen_slice_keeps_its_work_directory_a_killed_one_does_not(store, camp, tmp_path, monkeypatch):
    """A slice that lost its lease while its box was frozen still lives: the slice that took the job
    over must leave its work directory alone (removing it made the thawed slice fail the job with
    FileNotFoundError: CI, test_job_lease[freeze]); a dead process's directory goes."""
    import subprocess
    import tempfile
    import time
    cid, spec = camp
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen(["true"])
    gone.wait()
    zombie = subprocess.Popen(["true"])  # killed, not reaped yet by its parent (a pool process at once)
    while open(f"/proc/{zombie.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.01)
    frozen = tmp_path / f"fuzzfarm-{cid}-0-{os.getpid()}-abc"  # a live process: this one
    killed = tmp_path / f"fuzzfarm-{cid}-0-{gone.pid}-def"
    unreaped = tmp_path / f"fuzzfarm-{cid}-0-{zombie.pid}-ghi"
    for d in (frozen, killed, unreaped):
        (d / "corpus").mkdir(parents=True)
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                          engine=_engine(None)) == "done"
    zombie.wait()
    assert frozen.exists() and not killed.exists() and not unreaped.exists()


def test_a_restored_copy_of_a_running_slice_never_runs_it_a_second_time(store, camp):
    """A dropped broker connection makes Celery restore the unacknowledged message: the copy has
    the running slice's task id. It must not take the slice (nor remove its work directory) while
    the first delivery lives; only a redelivery whose first process is gone from this host may."""
    import os
    import socket
    import subprocess
    import tempfile

    cid, spec = camp
    claim, host = f"slice:{cid}:0:0", socket.gethostname()
    copy = f"task-1 {host} 1"  # the restored copy, in another pool process
    assert store.acquire_lease(claim, f"task-1 {host} {os.getpid()}", 60)  # the first delivery: alive
    live_dir = tempfile.mkdtemp(prefix=f"fuzzfarm-{cid}-0-")
    try:
        assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                              engine=_engine(None), owner=copy) == "skipped"
        assert os.path.isdir(live_dir) and store.job(cid, 0)["state"] == "queued"
    finally:
        os.rmdir(live_dir) if os.path.isdir(live_dir) else None
    gone = subprocess.Popen(["true"])
    gone.wait()
    store.r.set(f"fuzzfarm:lease:{claim}", f"task-1 elsewhere {gone.pid}")  # another host: its lease decides
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                          engine=_engine(None), owner=copy) == "skipped"
    store.r.set(f"fuzzfarm:lease:{claim}", f"task-1 {host} {gone.pid}")  # this host, its process gone
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                          engine=_engine(None), owner=copy) == "done"


def test_a_fuzzer_that_ends_early_is_not_counted_for_the_whole_slice(store):
    """A fuzzer that died a few seconds into a 10 s slice (the engine reports why) fuzzed those
    seconds, not ten: the job records what ran and runs the rest as the next slice."""
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 10.0, "harness_hash": H.get("checker").source_hash(),
                                 "version": "0"})
    spec = jobs.job_spec(cid, 0, store.campaign(cid))

    def run_fuzz_job(*, on_crash, on_stats, **kw):
        return JobResult(stats=JobStats(execs=300, crashes=0, elapsed_s=3.0), new_corpus=[], crashes=0, restarts=0,
                         error="the fuzzer exited with code 1 without a crash artifact")

    nxt = []
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, d: nxt.append((s, d)),
                          engine=types.SimpleNamespace(run_fuzz_job=run_fuzz_job), owner="t1") == "next"
    job = store.job(cid, 0)
    assert float(job["elapsed_base"]) == 3.0 and "exited with code 1" in job["warning"]
    assert [(s["slice"], d) for s, d in nxt] == [(1, 7.0)]


def test_a_slice_that_lost_its_lease_and_then_fails_leaves_the_job_alone(store, camp):
    """A frozen slice thaws after the janitor handed its job to another worker and hits an error
    (its work directory, its fuzzer): the job runs elsewhere, so the error must not fail it; the
    slice that still holds its lease fails its job as before (farm/tasks.py fail_slice)."""
    import time

    from fuzzfarm.farm import lease, tasks

    cid, spec = camp

    def frozen_then_fails(**kw):
        # the janitor, while this slice was frozen past its lease: the slice is another message's now
        later = time.time() + lease.LEASE_TTL_S + 60
        assert [lease.take_over(store, m, later) for m in lease.expired(store, later)] == [1]
        raise RuntimeError("the thawed slice's fuzzer restart failed")

    owner = lease.delivery_owner("task-frozen")
    with pytest.raises(RuntimeError):
        jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                       engine=types.SimpleNamespace(run_fuzz_job=frozen_then_fails), owner=owner)
    assert tasks.fail_slice(store, spec, "task-frozen", "internal error: RuntimeError") == "lost"
    assert store.job(cid, 0)["state"] != "failed"
    # the slice's new owner hits the same error: that one is the job's
    store.r.set(f"fuzzfarm:lease:slice:{cid}:0:0", lease.delivery_owner("task-requeued"))
    assert tasks.fail_slice(store, spec, "task-requeued", "internal error: RuntimeError") == "failed"
    assert store.job(cid, 0)["state"] == "failed"
