"""The farm's Celery tasks: thin wrappers over :mod:`.jobs` and :mod:`.triage`.

Task names are part of the wire format (``fuzzfarm.<task>``); arguments are JSON (ids and
strings; input bytes stay in Redis). Each task first counts its delivery in Redis: a message
delivered more than ``MAX_DELIVERIES`` times (its worker process died every time: native crash,
OOM kill, ``os._exit``) is recorded as failed with that cause and acknowledged, never run again
(docs/TRAPS.md#g15; with ``task_reject_on_worker_lost`` alone it would be redelivered forever, celery #9082).
"""

from __future__ import annotations

import logging
import os
import tempfile
import time

import redis
from celery import signals
from celery.exceptions import Reject, SoftTimeLimitExceeded
from kombu.exceptions import OperationalError

from fuzzfarm.farm import store as S
from fuzzfarm.farm import app, config, diskcheck, jobs, lease, redis_url, skew, triage
# Read at the worker's start like every other setting, so a bad value stops the worker there
# (fuzzfarm/settings.py) instead of failing the first job that merges a corpus or the janitor's round.
from fuzzfarm.farm import corpus_bound, rescue  # noqa: E402,F401

log = logging.getLogger("fuzzfarm.farm")

_store: tuple[int, S.Store] | None = None
# Redis (store or broker) unreachable for longer than the workers' patience. The task then hands
# its message back (Reject requeue=True): re-queued at once if Redis is back, else it stays
# unacked in Redis and is restored after the visibility timeout. Never dropped (an autoretry
# would need to publish, and a failed retry publish drops the message: a lost job).
_REDIS_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.OutOfMemoryError, OperationalError)
_RETRY: dict = {}


def _requeue(e: Exception) -> Reject:
    log.warning("Redis unreachable (%s); the task goes back to the queue",
                redis_url.mask_text(str(e), redis_url.from_env()))
    return Reject(f"Redis unreachable: {type(e).__name__}", requeue=True)


def store() -> S.Store:
    """This process's Store (one per pool process: clients are not shared across fork)."""
    global _store
    if _store is None or _store[0] != os.getpid():
        _store = (os.getpid(), S.Store(redis_url.from_env(), patient=True))
    return _store[1]


def _poisoned(task) -> int | None:
    """The delivery count when this message has been delivered too often, else None."""
    n = store().count_delivery(f"{task.request.id}:{task.request.retries}")
    return n if n > config.MAX_DELIVERIES else None


# Main process of a worker: the task messages it holds and has not acknowledged yet.
_in_hand: dict = {}


@signals.task_received.connect
def _track_received(request=None, **_kw) -> None:
    for tid, req in list(_in_hand.items()):
        if req.acknowledged:
            del _in_hand[tid]
    if request is not None:
        _in_hand[request.id] = request


@signals.worker_shutting_down.connect
def _requeued_on_shutdown_is_no_death(sig=None, how=None, **_kw) -> None:
    """A worker stopped on purpose (SIGQUIT, or SIGTERM with REMAP_SIGTERM=SIGQUIT: a fleet
    restart) hands its running tasks back to the queue (docs/TRAPS.md#g16). Those deliveries must not count
    toward the poison-pill limit, or a job interrupted by three restarts would be recorded as
    failed. Runs in the main process, after the soft shutdown window has passed and the running
    tasks were cancelled (so Celery's own active set is empty by then: hence ``_in_hand``)."""
    reqs = [r for r in _in_hand.values() if not r.acknowledged and r.time_start]
    if not reqs:
        return
    try:
        st = S.Store(redis_url.from_env())
        for req in reqs:
            st.uncount_delivery(f"{req.id}:{(req.request_dict or {}).get('retries', 0) or 0}")
        log.info("%s shutdown: %d running task(s) go back to the queue; not counted as deaths", how, len(reqs))
    except Exception as e:  # noqa: BLE001 - never get in the way of a shutdown
        log.warning("could not uncount the deliveries of %d running task(s): %s", len(reqs),
                    redis_url.mask_text(str(e), redis_url.from_env()))


def _collector_hands_back(st: S.Store, harness: str, wanted: str, record: tuple, republish, give_up) -> bool:
    """A collector whose copy of ``harness`` has another hash than the one the crash was found
    with does not triage it: it records why on the crash / bucket (field ``waiting``), holds the
    message a little and publishes it again, so a matching collector takes it (farm/skew.py);
    after ``skew.COLLECTOR_HANDBACKS`` hand-backs, ``give_up(reason)`` records it as not triaged."""
    m = skew.collector_mismatch(harness, wanted)
    if m is None:
        return False
    _, msg = m
    n = st.count_on(*record, "collector_waits")
    if n > skew.COLLECTOR_HANDBACKS:
        give_up(skew.collector_gave_up(msg, n - 1))
        return True
    st.note_on(*record, "waiting", msg)
    wait = skew.collector_wait(n)
    log.warning("%s; handing it back in %.1f s", msg, wait)
    time.sleep(wait)
    republish()
    return True


def _intake_stopped(st: S.Store, cid: str, harness: str, variant: str, sha: str, why: str) -> None:
    log.error("crash %s of campaign %s: %s", sha[:12], cid, why)
    st.set_crash(harness, variant, sha, status="intake failed", error=why, waiting="")
    st.mark_intaken(cid, sha, None)  # the input stays; the campaign can settle


def store_and_deaths(task) -> tuple:
    """(the store, ``task``'s deliveries when over the poison-pill limit, else None): every
    task's first step. A Redis error here hands the message back to the queue."""
    try:
        return store(), _poisoned(task)
    except _REDIS_ERRORS as e:
        raise _requeue(e) from e


def _died(n: int) -> str:
    return (f"gave up after {n - 1} deliveries: the worker process running it died each time "
            f"(native crash, OOM kill or os._exit); see the worker logs")


# ---- enqueueing (also used by the CLI) ----------------------------------------------------
def enqueue_fuzz(spec: dict, slice_s: float) -> None:
    soft, hard = config.fuzz_time_limits(slice_s)
    fuzz_job.apply_async(args=[spec], soft_time_limit=soft, time_limit=hard, retry=True,
                         retry_policy=config.WORKER_PUBLISH_RETRY_POLICY)


def enqueue_intake(cid: str, harness: str, variant: str, sha: str) -> None:
    intake.apply_async(args=[cid, harness, variant, sha], priority=config.INTAKE_PRIORITY, retry=True,
                       retry_policy=config.WORKER_PUBLISH_RETRY_POLICY)


def enqueue_merge(harness: str, variant: str, harness_hash: str) -> None:
    merge_corpus.apply_async(args=[harness, variant, harness_hash], priority=config.MERGE_PRIORITY, retry=True,
                             retry_policy=config.WORKER_PUBLISH_RETRY_POLICY)


def _enqueue_triage(task, priority: int | None = None, countdown: float | None = None):
    """``bid -> None`` enqueueing ``task`` for a bucket at ``priority`` (default: a first step,
    config.TRIAGE_PRIORITY; the order the user waits for is in farm/config.py)."""
    pri = config.TRIAGE_PRIORITY if priority is None else priority
    return lambda bid: task.apply_async(args=[bid], priority=pri, countdown=countdown, retry=True,
                                        retry_policy=config.WORKER_PUBLISH_RETRY_POLICY)


# This worker's pool size, read in its main process before the pool processes are forked (they
# inherit it): how many proofs may run at once here (config.proof_slots).
_concurrency = [1]


@signals.worker_init.connect
def _note_concurrency(sender=None, **_kw) -> None:
    c = getattr(sender, "concurrency", None)
    if isinstance(c, int) and c > 0:
        _concurrency[0] = c


def submit_campaign(st: S.Store, spec: dict) -> str:
    """Record a campaign and enqueue its jobs. Returns the campaign id."""
    cid = st.create_campaign(spec)
    camp = st.campaign(cid)
    first = min(float(camp["duration_s"]), config.MAX_SLICE_S)
    for n in range(int(camp["jobs"])):
        enqueue_fuzz(jobs.job_spec(cid, n, camp), first)
    return cid


# ---- tasks --------------------------------------------------------------------------------
@app.task(name=config.TASK_FUZZ, bind=True, **_RETRY)
def fuzz_job(self, spec: dict) -> str:
    """One slice of fuzz job ``spec['job']`` of campaign ``spec['campaign']``."""
    st, dead = store_and_deaths(self)
    if dead:
        jobs.fail_job(st, spec["campaign"], int(spec["job"]), _died(dead))
        return "failed"
    try:
        return jobs.run_slice(st, spec, enqueue_intake=enqueue_intake, enqueue_next=enqueue_fuzz,
                              worker=self.request.hostname or "", owner=lease.delivery_owner(self.request.id or ""),
                              enqueue_merge=enqueue_merge)
    except SoftTimeLimitExceeded:
        return fail_slice(st, spec, self.request.id or "",
                          f"slice {spec.get('slice', 0)} exceeded its time limit; the fuzzer was stopped")
    except _REDIS_ERRORS as e:
        raise _requeue(e) from e
    except OSError as e:
        if e.errno not in diskcheck.LOCAL_ERRNOS:
            fail_slice(st, spec, self.request.id or "", f"internal error: {type(e).__name__}: {e}")
            raise
        # this worker's disk (full, read-only, quota), not the job: another worker runs the slice
        owner = lease.delivery_owner(self.request.id or "")
        jobs.give_back(st, spec, owner)
        return diskcheck.hand_back(st, spec, (e.filename or tempfile.gettempdir(), e),
                                   worker=self.request.hostname or "", enqueue=enqueue_fuzz)
    except Exception as e:
        fail_slice(st, spec, self.request.id or "", f"internal error: {type(e).__name__}: {e}")
        raise


def fail_slice(st: S.Store, spec: dict, task_id: str, error: str) -> str:
    """Fail the job of slice ``spec`` for ``error``, unless task ``task_id`` no longer runs that
    slice: a slice that lost its lease (a frozen box thawed, a healed partition) and then hit an
    error is not the job's fate, since another worker runs the job now; it records nothing
    ("lost"), as :func:`jobs.run_slice` does when it notices the lost lease itself."""
    if lease.taken_over(st, spec, task_id):
        log.warning("job %s/%s slice %s: %s, after this worker lost the slice to another; nothing recorded",
                    spec["campaign"], spec["job"], spec.get("slice", 0), error)
        return "lost"
    jobs.fail_job(st, spec["campaign"], int(spec["job"]), error)
    return "failed"


@app.task(name=config.TASK_INTAKE, bind=True, **_RETRY)
def intake(self, cid: str, harness: str, variant: str, sha: str) -> str | None:
    """Bucket one reported crash input (idempotent by its sha256)."""
    st, dead = store_and_deaths(self)
    if dead:
        st.set_crash(harness, variant, sha, status="intake failed", error=_died(dead))
        st.mark_intaken(cid, sha, None)
        return None
    try:
        if _collector_hands_back(st, harness, (st.campaign(cid) or {}).get("harness_hash", ""),
                                 ("crash", (harness, variant, sha)), lambda: enqueue_intake(cid, harness, variant, sha),
                                 lambda why: _intake_stopped(st, cid, harness, variant, sha, why)):
            return None
        return triage.intake(st, cid, harness, variant, sha, enqueue_triage=_enqueue_triage(minimize))
    except _REDIS_ERRORS as e:
        raise _requeue(e) from e
    except Exception as e:
        st.set_crash(harness, variant, sha, status="intake failed", error=f"{type(e).__name__}: {e}"[:2000])
        st.mark_intaken(cid, sha, None)
        raise


def _bucket_task(task, bid: str, step, *, slot: str = "", **kw) -> bool:
    """Run triage ``step`` of bucket ``bid``. ``slot``: the step holds one of this worker's
    proof slots while it runs (config.proof_slots); when none is free its message is published
    again after config.PROOF_SLOT_WAIT_S and this process is free for other buckets' steps."""
    st, dead = store_and_deaths(task)
    if dead:
        triage.fail_bucket(st, bid, f"{task.name}: {_died(dead)}")
        return False
    try:
        b = st.bucket(bid) or {}
        if b and _collector_hands_back(st, b.get("harness", ""), b.get("harness_hash", ""), ("bucket", (bid,)),
                                       lambda: _enqueue_triage(task)(bid), lambda why: triage.fail_bucket(st, bid, why)):
            return False
        owner = lease.delivery_owner(task.request.id or "")  # a claim per delivery (triage._step)
        held = ()
        if slot:
            name = st.take_slot(f"{slot}:{task.request.hostname or ''}", owner,
                                config.proof_slots(_concurrency[0]), triage.CLAIM_TTL_S)
            if name is None:
                _enqueue_triage(task, config.PROOF_PRIORITY, countdown=config.PROOF_SLOT_WAIT_S)(bid)
                return False
            held = (name,)
        try:
            with triage.claims_renewed(st, bid, owner, extra=held):
                return step(st, bid, owner=owner, **kw)
        finally:
            for name in held:
                st.release_lease(name, owner)
    except _REDIS_ERRORS as e:
        raise _requeue(e) from e
    except SoftTimeLimitExceeded:
        triage.fail_bucket(st, bid, f"{task.name} exceeded its time limit ({config.COLLECT_SOFT_LIMIT_S:g} s)")
        return False
    except Exception as e:
        triage.fail_bucket(st, bid, f"{task.name}: {type(e).__name__}: {e}")
        raise


@app.task(name=config.TASK_MINIMIZE, bind=True, **_RETRY)
def minimize(self, bid: str) -> bool:
    """Minimize a new bucket's input (bytes, then preemptions), keeping its signature."""
    return _bucket_task(self, bid, triage.minimize, enqueue_next=_enqueue_triage(verify, config.VERIFY_PRIORITY))


@app.task(name=config.TASK_VERIFY, bind=True, **_RETRY)
def verify(self, bid: str) -> bool:
    """Replay the minimized reproducer N times in fresh processes."""
    return _bucket_task(self, bid, triage.verify, enqueue_next=_enqueue_triage(fix_check, config.FIX_CHECK_PRIORITY))


@app.task(name=config.TASK_FIX_CHECK, bind=True, **_RETRY)
def fix_check(self, bid: str) -> bool:
    """Replay the reproducers against the fixed variant; store the final artifact."""
    return _bucket_task(self, bid, triage.fix_check, enqueue_triage=_enqueue_triage(minimize),
                        enqueue_prove=_enqueue_triage(prove, config.PROOF_PRIORITY))


@app.task(name=config.TASK_PROVE, bind=True, **_RETRY)
def prove(self, bid: str) -> bool:
    """Prove the fix on the reproducer's scenario, then the bucket is done (after every
    bucket's fix verdict: config.PROOF_PRIORITY; in one of this worker's proof slots)."""
    return _bucket_task(self, bid, triage.prove_step, slot="proof-slot", enqueue_triage=_enqueue_triage(minimize),
                        enqueue_again=_enqueue_triage(prove, config.PROOF_PRIORITY, countdown=config.PROOF_SLOT_WAIT_S))


@app.task(name=config.TASK_MERGE, bind=True, **_RETRY)
def merge_corpus(self, harness: str, variant: str, harness_hash: str, since: float | None = None) -> str:
    """Prune ``harness``'s shared corpus with ``-merge=1`` (off the fuzz workers: farm/jobs.py),
    once no triage task is queued or running (config.MERGE_DEFER_WAIT_S, MERGE_DEFER_MAX_S)."""
    import tempfile

    from fuzzfarm import engine
    st, dead = store_and_deaths(self)
    if dead:  # a merge that kills its process: the corpus stays unmerged (and capped)
        log.error("corpus merge for %s: %s", harness, _died(dead))
        return "failed"
    try:
        since = time.time() if since is None else since
        if time.time() - since < config.MERGE_DEFER_MAX_S and rescue.triage_in_flight(st):
            merge_corpus.apply_async(args=[harness, variant, harness_hash], kwargs={"since": since},
                                     priority=config.MERGE_PRIORITY, countdown=config.MERGE_DEFER_WAIT_S, retry=True,
                                     retry_policy=config.WORKER_PUBLISH_RETRY_POLICY)
            return "deferred"
        with tempfile.TemporaryDirectory(prefix=f"fuzzfarm-merge-{harness}-") as work:
            return jobs.merge_task(st, engine, harness, variant, harness_hash, work)
    except _REDIS_ERRORS as e:
        raise _requeue(e) from e
