"""Crash intake and bucket triage: the logic behind the collector tasks (no Celery here).

    intake(crash)  ->  bucket created or joined (atomic, counted once per input sha256)
    new bucket     ->  minimize -> verify (10 fresh processes) -> fix_check -> artifact

Every step is idempotent: it reads the bucket's state in Redis, does nothing when the step is
already past, and holds a claim so duplicate messages never run a step twice at the same time:
the claim is the delivery's (task id, host, pid), renewed while the task runs, and a redelivery
after its process died takes it over (``_step``). Each step stores its result before it enqueues
the next one.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Callable

import fuzzfarm
from fuzzfarm import harness as H
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, recheck, triage_ahead
from fuzzfarm import settings
# the triage budgets, as names of this module (a test sets them here for the farm's triage alone)
from fuzzfarm.collector.budgets import (FIX_BUDGET_S, FIX_FLAKY_REPLAYS, FIX_PCT_RUNS, FIX_RANDOM_RUNS,
                                        MINIMIZE_BUDGET_S, VERIFY_RUNS)

log = logging.getLogger("fuzzfarm.farm")

# A crash input whose first replay passes is replayed up to this many times more before it is
# called unreproducible: a bug that fails 30% of the time is still a bug (a flaky one).
INTAKE_REPLAYS = settings.number("FUZZFARM_INTAKE_REPLAYS", 4, integer=True)
# Corpus inputs the fix check replays on the fixed variant (the other budgets: collector/budgets.py).
FIX_CORPUS_MAX = settings.number("FUZZFARM_FIX_CORPUS_MAX", 200, integer=True)
# A triage step's claim lasts this long unless renewed (every CLAIM_TTL_S / 4 while its task runs:
# tasks.py, claims_renewed), so a copy of its message waits at most this long for a dead holder.
CLAIM_TTL_S = 20.0
H.max_starvation_s()  # a bad FUZZFARM_MAX_STARVATION_S stops the worker at its start, not in a task
# Kinds that a replay cannot minimize or verify cheaply (every run takes the limit) or at all.
RESOURCE_KINDS = ("timeout", "oom", "leak")
NOT_REPLAYABLE = RESOURCE_KINDS + ("replay error",)


def _collector():
    from fuzzfarm import collector
    return collector


def _go_failure(b: dict):
    """The bucket's bug in Go's terms (``collector.verdict.go_failure``): the fix check calls a
    failure on ``fixed`` with it the bug, whatever Python function it ran in."""
    from fuzzfarm.collector.verdict import go_failure
    return go_failure(b)


def _replay(harness: str, variant: str, data: bytes, *, trace: bool = False) -> dict:
    """One fresh-process replay, classified (``collector.replay``)."""
    return _collector().replay(harness, variant, data, trace=trace)


def starvation_bound(st: S.Store, cid: str) -> str:
    """The starvation bound the crashes of campaign ``cid`` are triaged under (the text of
    ``FUZZFARM_MAX_STARVATION_S``): the campaign's own (``submit --max-starvation``), else this
    collector's setting or the default. The bucket records it, so every later step, on any
    collector, replays under the bound the input was found with (docs/timing.md)."""
    own = (st.campaign(cid) or {}).get("max_starvation_s")
    return H.max_starvation_text(H.max_starvation_s() if own in (None, "") else H.parse_max_starvation(own))


def _harness(name: str, bound):
    """What the collector's functions get for harness ``name``: with the bucket's starvation
    bound, a Target whose children run under it; a bucket that recorded none, the name."""
    if bound in (None, ""):
        return name
    from fuzzfarm.harness.target import resolve
    return resolve(name, bound)


def intake(st: S.Store, cid: str, harness: str, variant: str, sha: str, *,
           enqueue_triage: Callable[[str], None], outcome: Callable[..., dict] = _replay) -> str | None:
    """Bucket one reported crash. Returns the bucket id (None: nothing to bucket)."""
    crash = st.crash(harness, variant, sha)
    if crash is None:
        log.warning("intake %s: crash input not in Redis; nothing to do", sha[:12])
        st.mark_intaken(cid, sha, None)
        return None
    if crash.get("bucket"):  # already bucketed (a duplicate report or a redelivery)
        camp = st.campaign(cid) or {}
        recheck.note(st, crash["bucket"], cid, recheck.context(
            starvation_bound(st, cid), camp.get("harness_hash") or H.get(harness).source_hash()))
        st.mark_intaken(cid, sha, crash["bucket"])
        return crash["bucket"]
    col = _collector()
    data = crash["data"]
    artifact = crash.get("artifact", "crash")
    bound = starvation_bound(st, cid)
    joined = _join_by_engine_signature(st, cid, harness, variant, sha, crash, bound, enqueue_triage)
    if joined:
        return joined
    run_as = _harness(harness, bound)  # the harness with the bound, for every replay below
    hang = artifact == "timeout" and outcome is _replay
    if hang:
        # a hang: one replay bounded by the fuzz job's own -timeout (+ grace), not the collector's
        # 30 s limit (docs/RELIABILITY.md, "hanging input")
        out = col.triage(run_as, variant, data, artifact=artifact, fuzz_timeout_s=crash.get("fuzz_timeout_s"))
    else:
        out = outcome(run_as, variant, data, trace=True)
    replays = 1
    while not out.get("failed") and artifact not in RESOURCE_KINDS and replays <= INTAKE_REPLAYS:
        out = outcome(run_as, variant, data, trace=True)  # it failed once: maybe it is flaky
        replays += 1
    if not out.get("failed") and artifact in RESOURCE_KINDS and not hang:  # its own bucket
        out = col.triage(run_as, variant, data, artifact=artifact)
    if not out.get("failed"):
        log.warning("intake %s: %s input did not fail in %d replays; kept, recorded as unreproducible",
                    sha[:12], artifact, replays)
        st.set_crash(harness, variant, sha, bucket="", status="unreproducible", replays=replays)
        st.mark_intaken(cid, sha, None)
        return None
    sig = out.get("signature") or col.signature(out["kind"], out.get("exc_class") or "",
                                                list(out.get("crash_state") or []))
    said = crash.get("engine_signature") or ""
    if said and said != sig:  # the engine's word was wrong once: replay every crash of this harness from now on
        log.warning("intake %s: the fuzz engine said signature %s, the replay gives %s; crashes of %s/%s are "
                    "replayed at intake from now on", sha[:12], said[:12], sig[:12], harness, variant)
        st.distrust_engine_signature(harness, variant, sha)
        st.set_crash(harness, variant, sha, engine_signature_mismatch=True)
    camp = st.campaign(cid) or {}
    harness_hash = camp.get("harness_hash") or H.get(harness).source_hash()
    fields = {"kind": out["kind"], "exc_class": out.get("exc_class") or "", "crash_type": out.get("crash_type") or col.crash_type(out),
              "crash_state": list(out.get("crash_state") or []), "message": (out.get("message") or "")[:2000],
              "object": out.get("object") or "", "object_site": out.get("object_site") or "",
              "racing_site": out.get("racing_site") or "",
              "go_racing_site": out.get("go_racing_site") or "",
              "go_crash_state": list(out.get("go_crash_state") or []), "starvation_s": out.get("starvation"),
              "crash_state_shape": out.get("crash_state_shape") or "",
              "starved": H.starved_goroutines(out),
              "go_versions": out.get("go_versions") or "",  # only under older Go (docs/RUNTIME.md#go-version)
              "first_input": sha, "first_campaign": cid, "harness_hash": harness_hash,
              "version": fuzzfarm.__version__, "original_size": len(data),
              "preemptions_before": out.get("preemptions", 0), "libfuzzer_artifact": artifact,
              "replayable": out["kind"] not in NOT_REPLAYABLE, "intake_replays": replays,
              "intake_flaky": replays > 1, "max_starvation_s": bound,
              "verdict_context": recheck.context(bound, harness_hash)}
    bid, created, counted, count = st.create_or_join_bucket(harness=harness, variant=variant, signature=sig,
                                                            input_sha256=sha, fields=fields)
    bucket = st.bucket(bid) or {}
    if said and said == sig and not created and not bucket.get("engine_checked"):
        # the once-per-bucket re-check: a joining input's engine signature, confirmed by its
        # fresh-process replay; later crashes of this signature may join unreplayed
        st.update_bucket(bid, engine_checked=sha)
    # The creator starts triage; a later intake does so only if the creator died before it could.
    if created or (bucket.get("state") == S.B_NEW and not bucket.get("triage_queued")):
        if st.artifact(bid) is None:  # a first downloadable reproducer right away (not yet minimized)
            st.update_bucket(bid, original_b64=S.b64(data))
            files = col.build_artifact(bucket=bucket, original=data, minimized=data, outcome=out,
                                       harness_hash=harness_hash, version=fuzzfarm.__version__)
            st.put_artifact(bid, files)
        enqueue_triage(bid)
        st.update_bucket(bid, triage_queued=True)
    elif not bucket.get("recheck_of"):  # another campaign's crash: its verdict holds for its own context only
        recheck.joined(st, bucket, cid, fields, data, enqueue_triage)
    st.set_crash(harness, variant, sha, bucket=bid, signature=sig)
    st.mark_intaken(cid, sha, bid)
    log.info("intake %s -> bucket %s (%s%s, count %d)", sha[:12], bid, fields["crash_type"],
             ", new" if created else "", count)
    return bid


_VERIFIED = (S.B_FIX_CHECKING, S.B_PROVING, S.B_DONE)
# FUZZFARM_INTAKE_UNREPLAYED=0: every crash is replayed at intake (benchmarks/end_to_end.py
# compares the buckets and verdicts of both in one run).
INTAKE_UNREPLAYED = os.environ.get("FUZZFARM_INTAKE_UNREPLAYED", "1") != "0"


def known_steady(b: dict) -> bool:
    """Bucket ``b`` is verified (its verify replays stored) and not flaky, here or at intake: a
    crash of its signature adds nothing a replay would tell (``_join_by_engine_signature``)."""
    return (b.get("state") in _VERIFIED and int(b.get("verify_n") or 0) > 0
            and not b.get("flaky") and not b.get("intake_flaky"))


def _join_by_engine_signature(st: S.Store, cid: str, harness: str, variant: str, sha: str, crash: dict,
                              bound: str, enqueue_triage) -> str | None:
    """Join the crash to the bucket of the signature the fuzz engine computed for it
    (``engine_signature``: the fuzz child ran this very input in the deterministic runtime and
    bucketed the failure it raised as a replay does), without a replay. Only a ``crash``
    artifact, only an existing replayable bucket of the same harness and variant decided under
    the same context (starvation bound and harness hash, farm/recheck.py), verified and not
    flaky (``known_steady``), whose engine signature a fresh-process replay of another input than
    its creator's confirmed once (``engine_checked``: the first such crash takes the replay path,
    which sets it or distrusts the engine), and only while no replay of this harness ever
    contradicted the engine. Recorded as such on the crash
    (``joined="engine signature"``, ``replays=0``) and counted in the bucket's
    ``joined_unreplayed``. Returns the bucket id, or None: take the replay path."""
    said = crash.get("engine_signature") or ""
    if not INTAKE_UNREPLAYED or not said or crash.get("artifact", "crash") != "crash" or st.engine_signature_distrusted(harness, variant):
        return None
    bid = st.bucket_for_signature(harness, variant, said)
    b = st.bucket(bid) if bid else None
    if not b or b.get("recheck_of") or not b.get("replayable", True) or b.get("signature") != said:
        return None
    if not known_steady(b):  # not verified yet, or flaky: every input is replayed (its rate counts)
        return None
    if not b.get("engine_checked"):  # this crash is the bucket's re-check of the engine's word
        return None
    camp = st.campaign(cid) or {}
    harness_hash = camp.get("harness_hash") or H.get(harness).source_hash()
    ctx = recheck.context(bound, harness_hash)
    if ctx != recheck.bucket_context(b):  # another context: the replay path files its re-check
        return None
    res = st.join_unreplayed(bid, sha)
    if res is None:  # the bucket went away (gc) since it was looked up
        return None
    recheck.joined(st, b, cid, {"max_starvation_s": bound, "harness_hash": harness_hash},
                   crash["data"], enqueue_triage)
    st.set_crash(harness, variant, sha, bucket=bid, signature=said, joined="engine signature", replays=0)
    st.mark_intaken(cid, sha, bid)
    log.info("intake %s -> bucket %s (joined by the engine's signature, not replayed; count %d)", sha[:12], bid, res[1])
    return bid


def _step(st: S.Store, bid: str, owner: str, step: str, states: tuple[str, ...]):
    """The bucket if ``owner`` may run ``step`` now, else None (past it, or someone else on it).

    The step's claim is held by the delivery (``lease.delivery_owner``: task id, host, pid; the
    farm's tasks renew it while they run, :func:`claims_renewed`), not by the task id alone: a copy
    of the message restored while the first delivery still runs (its worker's connection dropped, or
    farm/unacked.py found it ownerless) must not run the step beside it. A copy that finds the claim
    held waits, bounded, for it to end: released (the step is done: skipped by state) or expired (its
    holder died on another host: this copy runs it). A holder on this host whose process is gone is
    taken over at once (a killed pool process, redelivered by Celery)."""
    from fuzzfarm.farm import lease

    b = st.bucket(bid)
    if b is None:
        log.warning("%s %s: no such bucket", step, bid)
        return None
    name = f"{bid}:{step}"
    deadline = time.monotonic() + 2 * CLAIM_TTL_S + 5
    while True:
        if b.get("state") not in states:
            return None
        if st.acquire_lease(name, owner, CLAIM_TTL_S) or lease.take_from_dead_delivery(st, name, owner):
            return b
        if len(owner.split(" ")) != 3 or time.monotonic() > deadline:  # (a caller's plain owner: no waiting)
            log.info("%s %s: another task holds it", step, bid)
            return None
        time.sleep(1.0)
        b = st.bucket(bid) or {}



class claims_renewed:
    """``with claims_renewed(st, bid, owner):`` renews, every ``CLAIM_TTL_S / 4``, each of ``bid``'s
    step claims that ``owner`` holds, until the block ends (the task's end, whatever it was). A
    process that dies or freezes stops renewing: its claim ends within ``CLAIM_TTL_S``."""

    STEPS = ("minimize", "verify", "fix_check", "prove")

    def __init__(self, st: S.Store, bid: str | None, owner: str, extra: tuple[str, ...] = ()):
        import threading

        self.st, self.owner = st, owner  # bid None: only the claims of ``extra``
        self.claims = [f"{bid}:{s}" for s in self.STEPS if bid] + list(extra)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fuzzfarm-claim", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(CLAIM_TTL_S / 4):
            try:
                self.st.renew_claims(self.claims, self.owner, int(CLAIM_TTL_S * 1000))
            except Exception:  # noqa: BLE001 - Redis away: the next round tries again
                pass

    def __enter__(self) -> "claims_renewed":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()


def _data(b: dict, field: str) -> bytes:
    return S.unb64(b[field])


def minimize(st: S.Store, bid: str, *, owner: str, enqueue_next: Callable[[str], None]) -> bool:
    b = _step(st, bid, owner, "minimize", (S.B_NEW, S.B_MINIMIZING))
    if b is None:
        return False
    st.advance_bucket(bid, (S.B_NEW,), S.B_MINIMIZING)
    original = _data(b, "original_b64")
    if not b.get("replayable", True):
        st.update_bucket(bid, minimized_b64=S.b64(original), minimized_size=len(original),
                         preemptions_after=b.get("preemptions_before", 0), minimize_note="not replayable")
    else:
        t0 = time.monotonic()
        res = _collector().minimize(_harness(b["harness"], b.get("max_starvation_s")), b["variant"], original,
                                    expected_signature=b["signature"],
                                    budget_s=MINIMIZE_BUDGET_S)
        data = res.data
        if res.signature != b["signature"]:  # docs/TRAPS.md#g3: never accept a reproducer of another bug
            log.warning("minimize %s: result has signature %s, keeping the original", bid, res.signature)
            data = original
        st.update_bucket(bid, minimized_b64=S.b64(data), minimized_size=len(data),
                         minimized_sha256=S.sha256(data), original_size=res.original_size,
                         preemptions_before=res.preemptions_before,
                         preemptions_after=res.preemptions_after if data is not original else res.preemptions_before,
                         minimize_runs=res.runs, minimize_s=round(time.monotonic() - t0, 2),
                         minimize_note=getattr(res, "stopped", ""))
    st.advance_bucket(bid, (S.B_MINIMIZING,), S.B_VERIFYING)
    enqueue_next(bid)
    st.release_lease(f"{bid}:minimize", owner)
    return True


def verify(st: S.Store, bid: str, *, owner: str, enqueue_next: Callable[[str], None]) -> bool:
    b = _step(st, bid, owner, "verify", (S.B_VERIFYING,))
    if b is None:
        return False
    data = _data(b, "minimized_b64")
    if not b.get("replayable", True):
        st.update_bucket(bid, reproducible=False, verify_ok=0, verify_n=0, first_divergence=None)
    else:
        fv = fix_variant(b["harness"], b["variant"])  # the fix check's pieces run beside the replays
        triage_ahead.start(_ahead_key(bid, data, fv), _fix_jobs(st, b, data, fv))
        res = _collector().verify(_harness(b["harness"], b.get("max_starvation_s")), b["variant"], data, n=VERIFY_RUNS,
                                  expected_signature=b["signature"])
        sigs = list(res.signatures)
        ok = sum(1 for s in sigs if s == b["signature"])
        rate = buggy_rate(b, ok, len(sigs))
        # flaky: it did not fail every time it was run (here, or at intake where a replay passed);
        # the one word on it every later step reads (fix_check, the Fisher test, the tables)
        flaky = 0 < len(sigs) and rate[0] < rate[1]
        st.update_bucket(bid, reproducible=bool(res.reproducible) and ok == len(sigs), verify_ok=ok,
                         verify_n=len(sigs), first_divergence=res.first_divergence, flaky=flaky,
                         buggy_rate=list(rate), verify_hash_seeds=list(getattr(res, "hash_seeds", None) or []),
                         hash_seed_dependent=getattr(res, "hash_seed_dependent", None))
    st.advance_bucket(bid, (S.B_VERIFYING,), S.B_FIX_CHECKING)
    enqueue_next(bid)
    st.release_lease(f"{bid}:verify", owner)
    return True


def buggy_rate(b: dict, verify_ok: int, verify_n: int) -> tuple[int, int]:
    """(failed, replays) of the bucket's reproducers on the buggy variant: the verify replays
    plus the intake's (which stopped at the first failure: 1 of ``intake_replays``). One count
    for the bucket's ``flaky`` and for the Fisher test of its fix verdict."""
    n_in = int(b.get("intake_replays") or 0)
    return verify_ok + (1 if n_in else 0), verify_n + n_in


def kept_by_fix(harness: str, kind: str, crash_state) -> bool:
    """``Target.kept_by_fix`` of the harness named ``harness``."""
    from fuzzfarm.harness.target import resolve
    return resolve(harness).kept_by_fix(kind, crash_state)


def fix_variant(harness: str, variant: str) -> str | None:
    """The variant a reproducer is fix-checked against: ``fixed`` when the harness has it
    (read from the harness source; the worker does not import harness code)."""
    from fuzzfarm.harness.target import resolve
    variants = resolve(harness).declared_variants() or ()
    return "fixed" if "fixed" in variants and variant != "fixed" else None


def _file_masked(st: S.Store, b: dict, variant: str, data: bytes, enqueue_triage) -> str | None:
    """File the other failure the fixed variant shows on a reproducer as its own bucket (through
    intake, as a crash of the bucket's first campaign on ``variant``); returns its id."""
    cid = b.get("first_campaign") or ""
    sha, _ = st.report_crash(cid, -1, b["harness"], variant, data, artifact="crash",
                             log_tail=f"found by the fix check of bucket {b['id']}")
    bid2 = intake(st, cid, b["harness"], variant, sha, enqueue_triage=enqueue_triage or (lambda _bid: None))
    if bid2:
        st.update_bucket(bid2, masked_by_fix_of=b["id"])
    return bid2


def fix_check(st: S.Store, bid: str, *, owner: str, outcome: Callable[..., dict] = _replay,
              enqueue_triage: Callable[[str], None] | None = None,
              enqueue_prove: Callable[[str], None] | None = None) -> bool:
    """Verify the fix (collector.fixverify: reproducers, flaky replays, schedules of the
    scenario and the corpus on the fixed variant), store the evidence and the final artifact.
    A different failure on the fixed variant is filed as its own bucket (``masked_bucket``).

    With ``enqueue_prove`` (the farm's task) and a proof to run, a bucket with a fixed variant
    stops once its fix verdict and final artifact are stored: it moves to ``proving`` and
    ``enqueue_prove(bid)`` queues the proof as its own step (``prove_step``,
    config.PROOF_PRIORITY), so the next bucket's triage does not wait for this proof's budget.
    Without it, the proof runs here too."""
    b = _step(st, bid, owner, "fix_check", (S.B_FIX_CHECKING,))
    if b is None:
        return False
    col = _collector()
    run_as = _harness(b["harness"], b.get("max_starvation_s"))
    minimized, original = _data(b, "minimized_b64"), _data(b, "original_b64")
    fv = fix_variant(b["harness"], b["variant"]) if b.get("replayable", True) else None
    # The proof, the fix evidence and the final replay: started by the verify step in this
    # process (farm/triage_ahead.py), or started here side by side.
    key = _ahead_key(bid, minimized, fv)
    futs = triage_ahead.take(key)
    if futs is None:
        triage_ahead.start(key, _fix_jobs(st, b, minimized, fv))
        futs = triage_ahead.take(key) or {}  # {}: FUZZFARM_TRIAGE_AHEAD=0, computed in turn below
    # the bucket's one word on flakiness (the verify step's, intake included) and its buggy rate
    flaky = bool(b.get("flaky"))
    buggy_ok, buggy_n = (b.get("buggy_rate") or [int(b.get("verify_ok") or 0), int(b.get("verify_n") or 0)])[:2]
    if flaky or int(b.get("verify_n") or 0) != VERIFY_RUNS:  # its evidence depends on the buggy rate
        futs.pop("evidence", None)
    if fv:
        t0 = time.monotonic()
        ev = triage_ahead.result(futs, "evidence", lambda: col.fix_verify(
            run_as, fv, minimized, expected_signature=b["signature"], expected_go=_go_failure(b), original=original,
            buggy_ok=buggy_ok, buggy_n=buggy_n, flaky=flaky, corpus=st.corpus(b["harness"])[:FIX_CORPUS_MAX],
            random_runs=FIX_RANDOM_RUNS, pct_runs=FIX_PCT_RUNS, flaky_replays=FIX_FLAKY_REPLAYS, budget_s=FIX_BUDGET_S))
        other = ev.pop("other", None)
        keeps = kept_by_fix(b["harness"], b["kind"], b.get("crash_state") or [])
        if keeps:  # a known hazard: whether or not these schedules carry over, the fix keeps it
            ev["kept_also"] = ev["verdict"] != "fixed"
            also = "; a reproducer fails on the fixed variant too" if ev["kept_also"] else ""
            ev["verdict"], ev["summary"] = "kept (hazard)", f"kept (hazard){also}"
        ev["kind"] = b["kind"]
        if other is not None:
            masked = _file_masked(st, b, fv, other["data"], enqueue_triage)
            ev["masked_bucket"] = masked
        ev["keeps"] = keeps
        proving = enqueue_prove is not None and _proof_wanted()
        if proving and ev["verdict"] == "fixed":  # not final until the proof has not refuted it
            ev["summary"] = f"fixed ({PROOF_PENDING})"
        st.update_bucket(bid, fix_variant=fv, fix_check_s=round(time.monotonic() - t0, 2), **_verdict_fields(ev))
    else:
        st.update_bucket(bid, fix_variant="", fixed=None)
    if fv and enqueue_prove is not None and _proof_wanted():
        _artifact(st, bid, b, run_as, minimized, original, futs, outcome)
        st.advance_bucket(bid, (S.B_FIX_CHECKING,), S.B_PROVING)
        enqueue_prove(bid)
        st.release_lease(f"{bid}:fix_check", owner)
        return True
    if fv:  # the proof first: the artifact then carries the verdict the proof left
        prove(st, bid, run_as, fv, minimized, futs, enqueue_triage=enqueue_triage)
    _artifact(st, bid, b, run_as, minimized, original, futs, outcome)
    return _done(st, bid, owner, "fix_check", S.B_FIX_CHECKING)


PROOF_PENDING = "proof pending"


def _verdict_fields(ev: dict) -> dict:
    """The bucket fields of fix evidence ``ev``: the one stored verdict every view reads (the
    CLI tables, the web view, ci's JUnit / SARIF / markdown, the downloaded repro.json)."""
    keeps, verdict = bool(ev.get("keeps")), ev["verdict"]
    also = "; a reproducer fails on the fixed variant too" if ev.get("kept_also") else ""
    fix_kind = (f"{ev.get('kind') or ''}: kept by the fix (the harness's FIXED_MAY_FAIL){also}" if keeps
                else "" if verdict == "fixed" else ev["summary"])
    return {"fixed": {"fixed": True, "unknown (flaky)": None}.get(verdict, False), "fix_keeps": keeps,
            "fix_verdict": verdict, "fix_summary": ev["summary"], "fix_kind": fix_kind,
            "fix_outcome": ev.get("outcome"), "fix_schedules": ev.get("schedules_tried", 0), "fix_evidence": ev,
            "masked_bucket": ev.get("masked_bucket") or ""}


def prove_step(st: S.Store, bid: str, *, owner: str, enqueue_triage: Callable[[str], None] | None = None,
               enqueue_again: Callable[[str], None] | None = None) -> bool:
    """The end of a bucket's triage once its fix verdict and final artifact are stored
    (``fix_check`` with ``enqueue_prove``): the proof on the fixed variant, then ``done``.

    When another bucket's step is searching this bucket's proof (same ``proof_key``: its claim,
    ``prove``), ``enqueue_again(bid)`` (the farm's task: its message again, after
    config.PROOF_SLOT_WAIT_S) and False: the bucket stays ``proving`` and this process is free;
    the next delivery takes the stored proof, or the search if its claimant died. Without
    ``enqueue_again`` this call waits for either."""
    b = _step(st, bid, owner, "prove", (S.B_PROVING,))
    if b is None:
        return False
    minimized, fv = _data(b, "minimized_b64"), b.get("fix_variant") or ""
    if fv and not prove(st, bid, _harness(b["harness"], b.get("max_starvation_s")), fv, minimized, None,
                        enqueue_triage=enqueue_triage, key=proof_key(b, fv), owner=owner,
                        busy=None if enqueue_again is None else lambda: enqueue_again(bid)):
        st.release_lease(f"{bid}:prove", owner)
        return False
    return _done(st, bid, owner, "prove", S.B_PROVING)


def _done(st: S.Store, bid: str, owner: str, step: str, from_state: str) -> bool:
    """The end of a bucket's triage: ``done`` from ``from_state``, ``step``'s lease released."""
    st.update_bucket(bid, done_at=time.time())
    st.advance_bucket(bid, (from_state,), S.B_DONE)
    st.release_lease(f"{bid}:{step}", owner)
    return True


def _artifact(st: S.Store, bid: str, b: dict, run_as: str, minimized: bytes, original: bytes, futs: dict,
              outcome: Callable[..., dict]) -> None:
    """The reproducer's traced replay and the bucket's final artifact (the proof is not in it:
    the CLI and the web view show it from the bucket)."""
    if outcome is not _replay:  # a caller's own replay (tests): not the one started ahead
        futs.pop("outcome", None)
    out = triage_ahead.result(futs, "outcome", lambda: outcome(run_as, b["variant"], minimized, trace=True))
    files = _collector().build_artifact(bucket=st.bucket(bid), original=original, minimized=minimized, outcome=out,
                                        harness_hash=b["harness_hash"], version=b.get("version") or fuzzfarm.__version__)
    st.put_artifact(bid, files)
    # the bucket reads as its reproducer does (its trace, dump and swimlanes): the first crash's
    # message could name the race's goroutines the other way round
    st.update_bucket(bid, starvation_s=out.get("starvation"), starved=H.starved_goroutines(out),
                     message=(out.get("message") or "")[:2000] if out.get("failed") else b.get("message", ""),
                     go_crash_state=list(out.get("go_crash_state") or []),  # of the reproducer
                     crash_state_shape=out.get("crash_state_shape") or "",
                     scenario=out.get("scenario") or "", scenario_key=out.get("scenario_key") or "")


PROOF_FIELDS = ("exhausted", "schedules", "runs", "bound", "elapsed_s", "scenario", "failure", "tolerated", "error",
                "proven_bound", "proven_schedules", "reduction", "line", "starvation_bound", "stopped_by", "pending")


def _proof_wanted() -> bool:
    """A proof runs: the collector has ``prove_fixed`` (a test double may leave it out) and
    ``$FUZZFARM_PROVE_BUDGET_S`` is above 0."""
    from fuzzfarm.collector.prove import budget_s
    return getattr(_collector(), "prove_fixed", None) is not None and budget_s() > 0


def _proof(harness: str, fixed_variant: str, data: bytes) -> dict | None:
    """``collector.prove_fixed`` of the reproducer, budget ``$FUZZFARM_PROVE_BUDGET_S`` (None:
    skipped); an error becomes the proof's ``error``."""
    from fuzzfarm.collector.prove import budget_s
    if not _proof_wanted():
        return None
    prove_fixed = _collector().prove_fixed
    # the search's wall limit: within this task's time limit, beside what else the step runs
    max_wall = max(budget_s(), min(4 * budget_s(), config.COLLECT_SOFT_LIMIT_S / 2))
    try:
        return prove_fixed(harness, fixed_variant, data, max_wall=max_wall)
    except Exception as e:  # noqa: BLE001 - no proof is no reason to lose the bucket's triage
        return {"error": f"{type(e).__name__}: {e}", "line": f"no proof: {type(e).__name__}: {e}"}


def proof_key(b: dict, fv: str) -> str | None:
    """What a proof of bucket ``b``'s reproducer on ``fv`` depends on, hashed: the bucket's root-cause
    group (collector.grouping), its scenario (the input's bytes outside the schedule region, which
    alone decide it: the search replaces the schedule), the harness source (every variant's), the
    fixed variant, the starvation bound and the search's settings. Buckets with one key share one
    proof. None (no reuse) for a bucket recorded before scenarios were."""
    if not b.get("scenario_key"):
        return None
    import hashlib
    import json

    from fuzzfarm.collector.grouping import root_cause
    from fuzzfarm.collector.prove import BUDGET_ENV, DEFAULT_BOUND, REDUCTION_ENV, budget_s
    parts = [root_cause(b)[0], b["scenario_key"], b.get("harness_hash") or "", fv, b.get("max_starvation_s") or "",
             DEFAULT_BOUND, budget_s(), os.environ.get(REDUCTION_ENV, "0"), BUDGET_ENV]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def _ahead_key(bid: str, minimized: bytes, fv: str | None) -> tuple:
    return (bid, S.sha256(minimized), fv or "", VERIFY_RUNS, FIX_CORPUS_MAX)


def _fix_jobs(st: S.Store, b: dict, minimized: bytes, fv: str | None) -> dict:
    """The pieces of ``b``'s fix check that depend only on its minimized reproducer, as
    callables (farm/triage_ahead.py): the traced replay for the artifact and, with a fixed
    variant, the fix evidence as for a reproducer that failed every verify replay. Not the proof:
    it is the prove step's, which runs in whichever collect process has a proof slot free
    (tasks.prove), so one started here would mostly be computed twice."""
    harness, variant = _harness(b["harness"], b.get("max_starvation_s")), b["variant"]
    jobs = {"outcome": lambda: _replay(harness, variant, minimized, trace=True)}
    if fv:
        col = _collector()
        original, corpus = _data(b, "original_b64"), st.corpus(b["harness"])[:FIX_CORPUS_MAX]
        jobs["evidence"] = lambda: col.fix_verify(
            harness, fv, minimized, expected_signature=b["signature"], expected_go=_go_failure(b), original=original,
            buggy_ok=VERIFY_RUNS,
            buggy_n=VERIFY_RUNS, flaky=False, corpus=corpus, random_runs=FIX_RANDOM_RUNS, pct_runs=FIX_PCT_RUNS,
            flaky_replays=FIX_FLAKY_REPLAYS, budget_s=FIX_BUDGET_S)
    return jobs


def prove(st: S.Store, bid: str, harness: str, fixed_variant: str, data: bytes, futs=None,
          enqueue_triage: Callable[[str], None] | None = None, key: str | None = None, owner: str = "",
          busy: Callable[[], None] | None = None) -> bool:
    """The fix evidence's ``proof``: a bounded exhaustive search of the reproducer's scenario on
    the fixed variant (``collector.prove``), budget ``$FUZZFARM_PROVE_BUDGET_S`` (0: skipped),
    stored as ``fix_proof`` (dict) and ``fix_proof_line`` (the sentence). ``futs``: the one
    started ahead (farm/triage_ahead.py), taken when there.

    The proof is one more check of the fix verdict (collector.proofcheck): a counterexample
    it finds on ``fixed`` makes the verdict ``NO`` or ``fails differently`` (its schedule is
    the artifact's ``fixed-fails.input``; another failure is filed as its own bucket), so the
    bucket never says ``fixed`` beside a proof that says ``NOT fixed``.

    ``key`` (``proof_key``): a proof stored under it by another bucket of the same group and
    scenario is taken instead of searching again (``fix_proof_of``: that bucket); a proof made
    here is stored under it (not one that could not run: ``error``). With ``owner`` (a delivery,
    ``lease.delivery_owner``) the search holds the key's claim (``proof_claim``), so two buckets
    of one key reaching their proofs at once on two collector processes search once: the other
    finds the claim held and waits for the proof to land (``busy()`` then False: its caller
    comes back later; without ``busy``, here). The claim is a lease renewed while the search runs:
    a claimant whose process died is taken over at once on its host, else when its lease ends
    (``CLAIM_TTL_S``). True: the proof is stored on the bucket (or none is wanted)."""
    res = st.proof(key) if key and _proof_wanted() else None
    claim = proof_claim(key) if res is None and key and owner and _proof_wanted() else None
    if claim:
        res, claim = _claim_or_proof(st, key, claim, owner, busy)
        if res is None and claim is None:
            return False
    try:
        if res is None:
            with claims_renewed(st, None, owner, extra=(claim,) if claim else ()):
                res = triage_ahead.result(futs, "proof", lambda: _proof(harness, fixed_variant, data))
            if res is None:
                return True
            if key and not res.get("error"):
                st.put_proof(key, {**res, "bucket": bid})
    finally:
        if claim:
            st.release_lease(claim, owner)
    st.update_bucket(bid, fix_proof={k: res.get(k) for k in PROOF_FIELDS}, fix_proof_line=res.get("line", ""),
                     fix_proof_of=res.get("bucket") if res.get("bucket") not in (None, bid) else "")
    b = st.bucket(bid) or {}
    ev = b.get("fix_evidence")
    if not isinstance(ev, dict) or not ev.get("checks"):
        return True
    from fuzzfarm.collector.proofcheck import with_proof
    ev, other = with_proof(harness, fixed_variant, ev, res, expected_signature=b["signature"],
                           expected_go=_go_failure(b))
    if other is not None and not ev.get("masked_bucket"):
        ev["masked_bucket"] = _file_masked(st, b, fixed_variant, other["data"], enqueue_triage)
    st.update_bucket(bid, **_verdict_fields(ev))
    files = st.artifact(bid)
    if files:  # the downloaded repro.json, failure.txt and fixed-fails.input say the verdict as it now is
        from fuzzfarm.collector.artifact import refresh_fix
        st.put_artifact(bid, refresh_fix(files, b, st.bucket(bid) or {}))
    return True


def proof_claim(key: str) -> str:
    """The lease name of the search for the proof stored under ``key``."""
    return f"proof:{key}"


def _claim_or_proof(st: S.Store, key: str, claim: str, owner: str, busy) -> tuple[dict | None, str | None]:
    """``(proof, None)`` once the proof under ``key`` is stored; ``(None, claim)`` when ``owner``
    holds the search's claim (taken free, or from a claimant whose process is gone on this host)
    and no proof is stored yet; ``(None, None)`` when another holds it and ``busy`` was called."""
    from fuzzfarm.farm import lease

    while True:
        if st.acquire_lease(claim, owner, CLAIM_TTL_S) or lease.take_from_dead_delivery(
                st, claim, owner, same_message=False):
            res = st.proof(key)  # stored by the claimant that released the claim just now
            if res is not None:
                st.release_lease(claim, owner)
                return res, None
            return None, claim
        res = st.proof(key)
        if res is not None:
            return res, None
        if busy is not None:
            log.info("proof %s: another bucket's step is searching it; waiting for its result", key[:12])
            busy()
            return None, None
        time.sleep(1.0)


def fail_bucket(st: S.Store, bid: str, error: str) -> None:
    """Triage of ``bid`` cannot go on: keep the bucket, its inputs and artifact, record why."""
    log.error("bucket %s: triage failed: %s", bid, error)
    st.update_bucket(bid, error=error[:2000])
    st.advance_bucket(bid, (S.B_NEW, S.B_MINIMIZING, S.B_VERIFYING, S.B_FIX_CHECKING, S.B_PROVING), S.B_FAILED)
