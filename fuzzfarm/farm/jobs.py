"""One slice of a fuzz job: the logic behind the ``fuzzfarm.fuzz_job`` task (no Celery here).

A job of ``duration_s`` seconds runs as consecutive slices of at most ``MAX_SLICE_S``; each
slice is one task message, and the last thing a slice does is enqueue the next one. A slice

1. drops duplicates (the job is already final, or already past this slice);
2. resolves the harness by name on this worker and refuses a source-hash mismatch (version skew);
3. runs ``engine.run_fuzz_job`` seeded with the shared corpus, keeping every crash in Redis and
   enqueueing its intake as soon as the engine reports it, streaming stats into the job;
4. uploads new corpus inputs and either enqueues the next slice or marks the job done. When the
   corpus has grown, its ``-merge=1`` prune is enqueued as its own task on the collector's queue
   (``fuzzfarm.merge_corpus``, once per harness until it runs), not run here: a merge is two
   atheris processes (outer and inner) that cost the fuzz worker 6-13% of its slices' target CPU
   and held the slice's end (measured, benchmarks/farm_scaling.py; docs/OPERATIONS.md, worker
   layout).
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import logging
import os
import shutil
import socket
import tempfile
import time
from typing import Callable

from fuzzfarm import harness as H
from fuzzfarm.farm import store as S
from fuzzfarm.engine.model import StopRequested
from fuzzfarm.farm import config, diskcheck, lease, portfolio, skew, spool
from fuzzfarm import settings

log = logging.getLogger("fuzzfarm.farm")

# Prune the shared corpus with -merge=1 once it is this much larger than after the last prune.
CORPUS_MERGE_GROWTH = 64
LIBFUZZER_TIMEOUT_S = settings.number("FUZZFARM_TIMEOUT_S", 10, integer=True, above=True)
# How long the lease must outlast the slice's end for the corpus upload and -merge=1 (no stats ticks then).
MERGE_LEASE_S = settings.number("FUZZFARM_MERGE_LEASE_S", 120.0, above=True)
# The stats tick (live stats, lease renewal, series point, cancel and warm-shutdown checks: 8
# Redis commands) every 2 s, or every quarter of the lease's TTL when that is shorter: 4
# commands/s per running job (docs/OPERATIONS.md, Redis traffic).
STATS_INTERVAL_S = lease.STATS_INTERVAL_S
RSS_LIMIT_MB = settings.number("FUZZFARM_RSS_LIMIT_MB", 2048, integer=True, above=True)
# A corpus merge is queued at most once per harness at a time (want_merge: the key
# ``corpus:<harness>:merge_queued``, set NX); a lost message (a purged queue) only delays the
# next merge by this long.
MERGE_QUEUED_S = 3600.0


class VersionSkew(RuntimeError):
    def __init__(self, msg: str, local_hash: str = ""):
        super().__init__(msg)
        self.local_hash = local_hash


class Cancelled(Exception):
    """The campaign was cancelled (``fuzzfarm cancel``): raised from the stats callback, which
    makes the engine kill the fuzzer (within a stats interval, ``STATS_INTERVAL_S``)."""


def job_spec(cid: str, n: int, camp: dict) -> dict:
    """The JSON message of job ``n``'s first slice."""
    spec = {"campaign": cid, "job": n, "harness": camp["harness"], "variant": camp["variant"],
            "strategy": camp["strategy"], "duration_s": float(camp["duration_s"]),
            "harness_hash": camp["harness_hash"], "slice": 0}
    if camp.get("max_starvation_s") not in (None, ""):  # the campaign's own bound (docs/timing.md)
        spec["max_starvation_s"] = camp["max_starvation_s"]
    return spec


def slice_seed(spec: dict) -> int:
    h = hashlib.sha1(f"{spec['campaign']}:{spec['job']}:{spec['slice']}".encode()).hexdigest()
    return int(h[:8], 16) % (2**31 - 1) + 1


def check_harness(name: str, submitted_hash: str) -> H.Target:
    """The harness registered as ``name`` on this worker, with the submitter's source hash.
    Raises HarnessError (unknown, not importable) or VersionSkew."""
    try:
        info = H.get(name)  # re-reads the installed packages when the name or its module is new here
        local = info.source_hash()
    except H.HarnessError as e:
        if str(e).startswith("unknown harness"):  # the submitter has it, this worker does not
            raise H.HarnessError(f"{e} (on worker {socket.gethostname()}); if the submitter has it, install it on "
                                 f"the workers too, {H.RESTART_HINT}") from e
        raise
    if local != submitted_hash:
        raise VersionSkew(f"version skew: harness {name!r} on worker {socket.gethostname()} has source hash "
                          f"{local[:12]}, the campaign was submitted with {submitted_hash[:12]}; install the "
                          f"same fuzzfarm and harness version on the workers and the submitter", local)
    return info


def run_slice(st: S.Store, spec: dict, *, enqueue_intake: Callable[[str, str, str, str], None],
              enqueue_next: Callable[[dict, float], None], worker: str = "", engine=None, owner: str = "",
              enqueue_merge: Callable[[str, str, str], None] | None = None) -> str:
    """Run one slice; returns what happened ("skipped", "failed", "cancelled", "lost", "next", "done").

    ``enqueue_merge(harness, variant, harness_hash)``: hands the corpus merge to another task
    (the farm's: :func:`want_merge`); without it the slice merges the corpus itself.

    ``owner``: the delivery (:func:`lease.delivery_owner`: the task id, host and pid). Only one
    delivery runs a given slice at a time (a claim in Redis held by it): a duplicate message, or a
    copy of this one restored after a lost broker connection while the first still runs, is
    dropped; a redelivery after its first process died on this host takes the claim over."""
    sl = _Slice(st, spec, worker, owner, enqueue_intake, enqueue_next)
    # Each step returns the slice's outcome when it ends the slice there, None to go on.
    return sl.admit() or sl.start() or sl.run(engine, enqueue_merge) or sl.account()


class _Slice:
    """One delivery of slice ``k`` of job ``n`` of campaign ``cid``, in the steps of :func:`run_slice`:
    admit (drop duplicates, claim it, check the harness and the disk), start (plan the slice and
    hold its lease), run (the engine, with the crash and stats callbacks), account (record its end,
    enqueue the next slice)."""

    def __init__(self, st: S.Store, spec: dict, worker: str, owner: str,
                 enqueue_intake: Callable[[str, str, str, str], None], enqueue_next: Callable[[dict, float], None]):
        self.st, self.spec, self.worker, self.owner = st, spec, worker, owner
        self.enqueue_intake, self.enqueue_next = enqueue_intake, enqueue_next
        self.cid, self.n, self.k = spec["campaign"], int(spec["job"]), int(spec.get("slice", 0))
        self.harness, self.variant = spec["harness"], spec["variant"]
        self.claim = lease.claim_name(self.cid, self.n, self.k)
        self.stopping = False  # once: the job's final stats after an early stop go through the same callback
        self.ticked: dict = {}  # the last tick's stats: what a cancelled slice ran (its engine's mix seconds)

    def release(self) -> None:
        if self.owner:
            self.st.release_lease(self.claim, self.owner)

    def admit(self) -> str | None:
        st, spec, cid, n, k = self.st, self.spec, self.cid, self.n, self.k
        job = self.job = st.job(cid, n)
        if not job:
            log.warning("job %s/%s: no such campaign job in Redis; dropping the message", cid, n)
            return "skipped"
        if job.get("state") in S.JOB_FINAL or int(job.get("slice", 0) or 0) > k:
            if (job.get("state") == S.JOB_RUNNING and int(job.get("slice", 0) or 0) == k + 1
                    and job.get("slice_started") == k):
                # This slice recorded its end, but its process may have died before it enqueued the
                # next slice (nothing else would, and the job would never end). Enqueue it again; if
                # the first one exists after all, the slice claim lets only one of them run.
                log.warning("job %s/%s slice %s: redelivered after it finished; enqueueing slice %s again", cid, n, k,
                            k + 1)
                left = float(spec["duration_s"]) - float(job.get("elapsed_base", 0) or 0)
                self.enqueue_next({**spec, "slice": k + 1}, max(1.0, min(left, config.MAX_SLICE_S)))
                return "skipped"
            log.info("job %s/%s slice %s: duplicate delivery, already %s", cid, n, k, job.get("state"))
            return "skipped"
        if st.cancel_requested(cid):
            _cancel_job(st, cid, n, k)
            return "cancelled"
        if self.owner and not (st.acquire_lease(self.claim, self.owner, config.fuzz_time_limits(config.MAX_SLICE_S)[1] + 60)
                               or lease.take_from_dead_delivery(st, self.claim, self.owner)):
            log.info("job %s/%s slice %s: another delivery runs this slice; dropping this duplicate", cid, n, k)
            return "skipped"
        try:
            check_harness(self.harness, spec["harness_hash"])
        except VersionSkew as e:  # another worker may have the submitted hash: hand the slice back (farm/skew.py)
            self.release()
            return skew.hand_back(st, spec, e.local_hash, worker=self.worker, enqueue=self.enqueue_next)
        except H.HarnessError as e:
            fail_job(st, cid, n, str(e))
            return "failed"
        skew.seen(st, cid, self.worker, spec["harness_hash"])
        bad = diskcheck.cannot_write()  # a full disk is this worker's fault, not the job's (farm/diskcheck.py)
        if bad:
            self.release()
            return diskcheck.hand_back(st, spec, bad, worker=self.worker, enqueue=self.enqueue_next)
        return None

    def start(self) -> str | None:
        st, job, cid, n, k = self.st, self.job, self.cid, self.n, self.k
        self.elapsed_base = float(job.get("elapsed_base", 0) or 0)
        self.execs_base = int(job.get("execs_base", 0) or 0)
        remaining = float(self.spec["duration_s"]) - self.elapsed_base
        self.slice_s = max(1.0, min(remaining, config.MAX_SLICE_S))
        # The previous delivery of this very slice died mid-run (worker killed): crashes it kept may
        # never have had their intake enqueued (killed in between). Enqueue those again (intake is
        # idempotent), or they would never be triaged and the campaign never settle.
        # (or its lease ended and the janitor requeued it: farm/lease.py)
        redelivered = job.get("slice_started") == k and (job.get("state") == S.JOB_RUNNING or bool(job.get("recovery")))
        self.strategy, self.prior = self.spec.get("strategy", "bytes"), None
        self.mix = self.strategy == portfolio.MIX
        if self.mix:  # the default: this slice's engine and the walk arms' prior from the campaign (farm/portfolio.py)
            self.strategy, self.prior = portfolio.choose(st, self.spec)
            self.slice_s = min(self.slice_s, max(1.0, portfolio.SLICE_S))  # short slices: the mix re-chooses often
            if k == 0:  # the job's first slice is half of it: the other engine's turn comes in this job too
                self.slice_s = min(self.slice_s, max(1.0, remaining / 2))
        start = dict(state=S.JOB_RUNNING, worker=self.worker, slice=k, slice_started=k, execs=0, elapsed_s=0,
                     ran=self.strategy, **({"started": time.time()} if k == 0 and not job.get("started") else {}))
        if not self.owner:
            st.update_job(cid, n, **start)
        elif not lease.hold(st, cid, n, k, self.owner, start):  # the slice's lease starts here (renewed by on_stats)
            log.info("job %s/%s slice %s: its claim was taken over before it started; dropping", cid, n, k)
            return "skipped"
        if spool.waiting():  # crashes this machine kept while Redis was full (farm/spool.py)
            spool.flush(st, self.enqueue_intake)
        if redelivered:
            for sha in st.pending_intakes(cid, n):
                log.warning("job %s/%s slice %s: redelivered; re-enqueueing the intake of crash %s", cid, n, k, sha[:12])
                self.enqueue_intake(cid, self.harness, self.variant, sha)
        return None

    def on_crash(self, rep) -> None:
        st, cid, n = self.st, self.cid, self.n
        try:
            sha, new = st.report_crash(cid, n, self.harness, self.variant, rep.data, rep.artifact, rep.log_tail,
                                       fuzz_timeout_s=LIBFUZZER_TIMEOUT_S,
                                       engine_signature=getattr(rep, "signature", "") or "")
        except spool.OOM as e:  # Redis is full: keep it on this disk, report it once Redis takes writes
            sha = spool.keep(cid, n, self.harness, self.variant, rep.data, rep.artifact, rep.log_tail)
            log.warning("job %s/%s: Redis is out of memory (%s); crash %s kept in %s until it accepts writes",
                        cid, n, e, sha[:12], spool.directory())
            return
        log.info("job %s/%s: %s %s (%d bytes)%s", cid, n, rep.artifact, sha[:12], len(rep.data),
                 "" if new else ", already reported")
        if self.mix:
            portfolio.note_crash(st, cid, sha, self.strategy)
        if new:
            self.enqueue_intake(cid, self.harness, self.variant, sha)

    def on_stats(self, stats) -> None:
        st, cid, n, k = self.st, self.cid, self.n, self.k
        try:
            if spool.waiting():
                spool.flush(st, self.enqueue_intake)
            live = {**_as_dict(stats), "execs_base": self.execs_base}  # for the series point (no HGET)
            self.ticked.update(live)
            if not self.owner:
                st.job_stats(cid, n, live)
            elif not lease.tick(st, cid, n, k, self.owner, live):  # renews the lease, same round trips
                raise lease.LeaseLost(self.claim)
        except spool.OOM:  # Redis is full: skip this tick, go on fuzzing (crashes are kept locally)
            pass
        if st.cancel_requested(cid):
            raise Cancelled(cid)
        if self.worker and not self.stopping and st.worker_stop_requested(self.worker, os.getppid()):
            self.stopping = True  # our worker is in warm shutdown (farm/shutdown.py): end the slice now
            raise StopRequested(f"worker {self.worker} is shutting down")

    def run(self, engine, enqueue_merge) -> str | None:
        st, spec, cid, n, k = self.st, self.spec, self.cid, self.n, self.k
        if engine is None:
            from fuzzfarm import engine
        corpus = st.corpus(self.harness)
        # A work directory of this job still here belongs to a slice whose process was killed: remove
        # it. One whose process still lives is a slice that lost its lease while frozen (SIGSTOP, a
        # suspended VM): it must find that out when it thaws and record nothing; removing its
        # directory made it fail the job this slice now runs ("internal error: FileNotFoundError").
        for stale in glob.glob(os.path.join(tempfile.gettempdir(), glob.escape(f"fuzzfarm-{cid}-{n}-") + "*")):
            if not _process_alive(stale, f"fuzzfarm-{cid}-{n}-"):
                shutil.rmtree(stale, ignore_errors=True)
        workdir = tempfile.mkdtemp(prefix=f"fuzzfarm-{cid}-{n}-{os.getpid()}-")
        try:
            result = self.result = engine.run_fuzz_job(
                harness=self.harness, variant=self.variant, strategy=self.strategy, seed=slice_seed(spec),
                duration_s=self.slice_s, corpus=corpus, workdir=workdir, on_crash=self.on_crash,
                on_stats=self.on_stats, timeout_s=LIBFUZZER_TIMEOUT_S, rss_limit_mb=RSS_LIMIT_MB,
                stats_interval_s=STATS_INTERVAL_S, **({"prior": self.prior} if self.prior else {}),
                **({"max_starvation": spec["max_starvation_s"]} if "max_starvation_s" in spec else {}))
            stats = self.stats = _as_dict(result.stats)
            if self.mix:
                portfolio.record(st, cid, self.strategy, float(stats.get("elapsed_s", 0) or 0),
                                 getattr(result, "walk", None))
            self.stopped = getattr(result, "stopped", False)  # engines that cannot stop early do not say
        except Cancelled:  # the crashes it found are already kept and their intake enqueued
            if self.mix:  # the mix line shows what ran, a cancelled campaign's too (its walk arms are not known)
                portfolio.record(st, cid, self.strategy, float(self.ticked.get("elapsed_s", 0) or 0), None)
            _cancel_job(st, cid, n, k)
            self.release()
            return "cancelled"
        except lease.LeaseLost:  # we were cut off long enough for the janitor to requeue the slice
            log.warning("job %s/%s slice %s: this worker lost the slice's lease (it stopped renewing it for over "
                        "%.0f s) and another worker runs it now; fuzzer stopped, nothing recorded", cid, n, k,
                        lease.LEASE_TTL_S)
            return "lost"
        else:
            if not self.owner:
                st.job_stats(cid, n, stats)
            elif not lease.hold(st, cid, n, k, self.owner, {f: stats[f] for f in S.STAT_FIELDS if f in stats},
                                ttl_s=lease.LEASE_TTL_S + MERGE_LEASE_S):  # covers the upload (and a merge run here)
                log.warning("job %s/%s slice %s: lease lost at the end of the slice; nothing recorded", cid, n, k)
                return "lost"
            self.added = st.add_corpus(self.harness, result.new_corpus)
            if enqueue_merge is not None:  # the collector's queue merges it (farm/tasks.py merge_corpus)
                want_merge(st, self.harness, self.variant, spec["harness_hash"], enqueue_merge)
            elif not self.stopped:  # a worker shutting down has no time for a corpus merge
                _maybe_merge(st, engine, self.harness, self.variant, os.path.join(workdir, "merge"))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return None

    def account(self) -> str:
        st, spec, job, cid, n, k = self.st, self.spec, self.job, self.cid, self.n, self.k
        result, stats, slice_s = self.result, self.stats, self.slice_s
        execs = int(stats.get("execs", 0) or 0)
        if result.error and execs == 0:
            bad = diskcheck.cannot_write()  # its disk filled up meanwhile: the worker's fault, hand it back
            if bad:
                give_back(st, spec, self.owner)
                return diskcheck.hand_back(st, spec, bad, worker=self.worker, enqueue=self.enqueue_next)
            fail_job(st, cid, n, f"the fuzzer did not run: {result.error}")
            return "failed"
        if self.stopped:  # ended early by a warm shutdown: the rest of the job is the next slice's
            log.info("job %s/%s slice %s: stopped after %.1f s of %.1f (worker shutting down); the rest is requeued",
                     cid, n, k, float(stats.get("elapsed_s", 0) or 0), slice_s)
            slice_s = min(slice_s, float(stats.get("elapsed_s", 0) or 0))
        elif result.error and float(stats.get("elapsed_s", 0) or 0) < slice_s:
            # The fuzzer ended early (it died; the engine says why): the job is owed the rest. Count
            # what it fuzzed, at least a second so every slice moves the job on, and run the rest as
            # the next slice, whose fresh fuzzer may get past it.
            ran = max(1.0, float(stats.get("elapsed_s", 0) or 0))
            log.warning("job %s/%s slice %s: the fuzzer ended after %.1f s of %.1f (%s); the rest runs as the next slice",
                        cid, n, k, ran, slice_s, str(result.error)[:200])
            slice_s = min(slice_s, ran)
        elapsed_base = self.elapsed_base + slice_s
        fields = {"elapsed_base": elapsed_base, "execs_base": self.execs_base + execs, "execs": 0, "elapsed_s": 0,
                  "restarts": int(job.get("restarts", 0) or 0) + int(result.restarts or 0),
                  "corpus_added": int(job.get("corpus_added", 0) or 0) + self.added,
                  "disk_handbacks": 0}  # a worker ran it: hand-backs for a full disk count anew (farm/diskcheck.py)
        if result.error:
            fields["warning"] = str(result.error)[:500]
        if float(spec["duration_s"]) - elapsed_base >= 1.0:
            if not _record_end(st, cid, n, k, self.owner, dict(slice=k + 1, **fields)):
                return "lost"
            self.enqueue_next({**spec, "slice": k + 1}, min(float(spec["duration_s"]) - elapsed_base, config.MAX_SLICE_S))
            self.release()
            return "next"
        if not _record_end(st, cid, n, k, self.owner, dict(state=S.JOB_DONE, finished=time.time(), **fields)):
            return "lost"
        self.release()
        return "done"


def give_back(st: S.Store, spec: dict, owner: str) -> None:
    """Drop this delivery's hold on ``spec``'s slice (its lease and claim) so that the copy it
    publishes for another worker can run it; the job waits ``queued``; nothing of the slice counts."""
    if not owner:
        return
    cid, n, k = spec["campaign"], int(spec["job"]), int(spec.get("slice", 0))
    lease.hold(st, cid, n, k, owner, {"state": S.JOB_QUEUED, "worker": "", "execs": 0, "elapsed_s": 0}, ttl_s=None)
    st.release_lease(lease.claim_name(cid, n, k), owner)


def _record_end(st: S.Store, cid: str, n: int, k: int, owner: str, fields: dict) -> bool:
    """Record the slice's end (and drop its lease) only while this task still holds the slice."""
    if not owner:
        st.update_job(cid, n, **fields)
        return True
    if lease.hold(st, cid, n, k, owner, fields, ttl_s=None):
        return True
    log.warning("job %s/%s slice %s: another worker took this slice over (lease lost); its end is not recorded",
                cid, n, k)
    return False


def _cancel_job(st: S.Store, cid: str, n: int, k: int) -> None:
    log.info("job %s/%s slice %s: campaign cancelled; job stopped", cid, n, k)
    st.update_job(cid, n, state=S.JOB_CANCELLED, finished=time.time())


def _process_alive(workdir: str, prefix: str) -> bool:
    """Whether the process that made ``workdir`` (``<prefix><pid>-<random>``) still lives on this
    host; a directory named otherwise has no owner to ask (False)."""
    pid = os.path.basename(workdir)[len(prefix):].split("-", 1)[0]
    return pid.isdigit() and not lease.process_gone(int(pid))


def fail_job(st: S.Store, cid: str, n: int, error: str) -> None:
    log.error("job %s/%s failed: %s", cid, n, error)
    st.update_job(cid, n, state=S.JOB_FAILED, finished=time.time(), error=error)


def _merge_due(st: S.Store, harness: str) -> bool:
    return st.corpus_size(harness) >= st.corpus_merged_size(harness) + CORPUS_MERGE_GROWTH


def want_merge(st: S.Store, harness: str, variant: str, harness_hash: str,
               enqueue_merge: Callable[[str, str, str], None]) -> bool:
    """At a slice's end: enqueue the corpus merge when the corpus has grown enough, once per
    harness while one is queued (``corpus:<harness>:merge_queued``, dropped by the merge task
    when it starts, or after ``MERGE_QUEUED_S`` if its message was lost); else only trim the
    corpus to its cap (Redis only). True when a merge was enqueued."""
    from fuzzfarm.farm import corpus_bound

    if not _merge_due(st, harness):
        if corpus_bound.over_cap(st, harness):
            log.info("corpus %s: over its cap of %d, %d largest inputs removed", harness, corpus_bound.CORPUS_MAX,
                     corpus_bound.trim(st, harness))
        return False
    if not st.queue_merge(harness, socket.gethostname(), MERGE_QUEUED_S):
        return False  # one is queued already: it merges what this slice added too
    try:
        enqueue_merge(harness, variant, harness_hash)
    except Exception:
        st.merge_done(harness)  # the next slice's end tries again
        raise
    return True


def merge_task(st: S.Store, engine, harness: str, variant: str, harness_hash: str, workdir: str) -> str:
    """The ``fuzzfarm.merge_corpus`` task's logic: merge ``harness``'s corpus with this machine's
    copy of the harness, unless it is another version than the campaign's (a merge keeps what
    *its* harness covers; the corpus then waits for a matching merger and stays capped)."""
    st.merge_done(harness)  # inputs uploaded from now on may want another merge
    try:
        local = H.get(harness).source_hash()
    except H.HarnessError as e:
        log.warning("corpus merge for %s skipped on %s: %s", harness, socket.gethostname(), e)
        return "skipped"
    if local != harness_hash:
        log.warning("corpus merge for %s skipped on %s: its harness has source hash %s, the corpus's campaign %s "
                    "(install the same version on the collectors)", harness, socket.gethostname(), local[:12],
                    harness_hash[:12])
        return "skipped"
    return "merged" if _maybe_merge(st, engine, harness, variant, workdir) else "not due"


def _maybe_merge(st: S.Store, engine, harness: str, variant: str, workdir: str) -> bool:
    """Keep the shared corpus small: ``-merge=1`` it when it has grown since the last merge, within
    a bounded time, and never over ``FUZZFARM_CORPUS_MAX`` inputs (farm/corpus_bound.py)."""
    from fuzzfarm.farm import corpus_bound

    if not _merge_due(st, harness) or not hasattr(engine, "merge_corpus"):
        if corpus_bound.over_cap(st, harness):
            log.info("corpus %s: over its cap of %d, %d largest inputs removed", harness, corpus_bound.CORPUS_MAX,
                     corpus_bound.trim(st, harness))
        return False
    # One merge of a harness's corpus at a time: jobs of a campaign end together and would each
    # merge the same corpus (the same result, a whole atheris run each); the others skip it.
    me, name = f"{socket.gethostname()}:{os.getpid()}", f"merge:{harness}"
    if not st.acquire_lease(name, me, MERGE_LEASE_S):
        return False
    try:
        snapshot = st.corpus(harness)
        os.makedirs(workdir, exist_ok=True)
        try:
            kept = engine.merge_corpus(harness, variant, snapshot, workdir, budget_s=corpus_bound.MERGE_BUDGET_S)
        except Exception as e:  # noqa: BLE001 - a failed merge only means a bigger corpus (the cap still holds)
            log.warning("corpus merge for %s failed: %s", harness, e)
            kept = []
        if kept:  # an empty result means the merge did not work (docs/TRAPS.md#g1): keep everything
            removed = st.prune_corpus(harness, snapshot, kept)
            log.info("corpus %s: merged %d -> %d (%d removed)", harness, len(snapshot), len(kept), removed)
        if corpus_bound.over_cap(st, harness):
            log.info("corpus %s: over its cap of %d after the merge, %d largest inputs removed", harness,
                     corpus_bound.CORPUS_MAX, corpus_bound.trim(st, harness))
        st.set_corpus_merged_size(harness, st.corpus_size(harness))
    finally:
        st.release_lease(name, me)
    return True


def _as_dict(stats) -> dict:
    if dataclasses.is_dataclass(stats):
        return dataclasses.asdict(stats)
    return dict(stats or {})
