"""Task logic (fuzzfarm.farm.jobs / .triage) against a real redis-server, with stand-ins for the
engine and the collector so that duplicates, redeliveries and slicing can be driven exactly."""

from __future__ import annotations

import dataclasses
import types

import pytest

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, jobs, triage


# ---- stand-ins ----------------------------------------------------------------------------
def _outcome_of(data: bytes) -> dict:
    """Inputs starting with b"X" fail with signature-able state; b"O" pass."""
    if data[:1] == b"X":
        return {"failed": True, "kind": "goroutine panic", "exc_class": "TypeError", "message": "nil",
                "crash_state": ["stop", "add", "handle"], "preemptions": 2, "trace": "t", "dump": "d"}
    if data[:1] == b"Y":
        return {"failed": True, "kind": "concurrent map writes", "exc_class": "ConcurrentMapWrites", "message": "m",
                "crash_state": ["default_opts", "new", "new"], "preemptions": 1, "trace": "t", "dump": "d"}
    if data[:1] == b"W":  # upstream hazard P3(b), which checker's fixed variant keeps
        return {"failed": True, "kind": "WaitGroup reused before previous Wait returned", "exc_class": "WaitGroupReuse",
                "message": "m", "crash_state": ["Group.wait", "WaitForControlledPods.gather", "execute.main"],
                "preemptions": 0, "trace": "t", "dump": "d"}
    return {"failed": False, "preemptions": 0, "trace": "t"}


def fake_outcome(harness, variant, data, *, trace=False):
    return _outcome_of(data)


@dataclasses.dataclass
class MinRes:
    data: bytes
    original_size: int
    minimized_size: int
    preemptions_before: int
    preemptions_after: int
    runs: int
    signature: str


def make_collector(min_to: bytes | None = None):
    sig = lambda kind, exc, state: f"{kind}|{exc}|{'<'.join(state[:3])}"  # noqa: E731

    def minimize(harness, variant, data, *, expected_signature, budget_s):
        out = min_to if min_to is not None else data[:1]
        o = _outcome_of(out)
        return MinRes(out, len(data), len(out), 2, 0, 5, sig(o.get("kind"), o.get("exc_class"), o.get("crash_state", [])))

    def verify(harness, variant, data, *, n=10, expected_signature=None):
        o = _outcome_of(data)
        s = sig(o["kind"], o["exc_class"], o["crash_state"])
        return types.SimpleNamespace(reproducible=True, signatures=[s] * n, first_divergence=None)

    def fix_check(harness, fixed_variant, data, *, expected_signature=None):
        return {"variant": fixed_variant, "failed": False, "kind": None, "signature": None, "fixed": True}

    def build_artifact(*, bucket, original, minimized, outcome, harness_hash, version):
        return {"input.min": minimized, "input.orig": original, "repro.json": b"{}"}

    def fix_verify(harness, fv, minimized, *, expected_signature, original=None, **_kw):
        """The reproducers through this stand-in's (maybe replaced) fix_check; no fuzzing."""
        from fuzzfarm.collector import verdict as V
        checks = []
        for name, data in (("reproducer", minimized), ("original input", original)):
            if data is not None:
                r = ns.fix_check(harness, fv, data, expected_signature=expected_signature)
                checks.append({"name": name, "runs": 1, "failed": int(r["failed"]),
                               "verdict": V.run_verdict(expected_signature, r)})
        v = V.worst([c["verdict"] for c in checks])
        return V.evidence(variant=fv, verdict=v, outcome=None, checks=checks)

    ns = types.SimpleNamespace(signature=sig, crash_type=lambda o: o["kind"], minimize=minimize, verify=verify,
                               fix_check=fix_check, fix_verify=fix_verify, build_artifact=build_artifact)
    return ns


@pytest.fixture
def col(monkeypatch):
    c = make_collector()
    monkeypatch.setattr(triage, "_collector", lambda: c)
    monkeypatch.setattr(triage, "fix_variant", lambda h, v: "fixed")
    return c


def _camp(st, jobs_=1, duration=5.0):
    return st.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": jobs_,
                               "duration_s": duration, "harness_hash": "h" * 64, "version": "0.1.0"})


def _intake(st, cid, data, queued):
    sha, _ = st.report_crash(cid, 0, "checker", "buggy", data)
    return triage.intake(st, cid, "checker", "buggy", sha, enqueue_triage=queued.append, outcome=fake_outcome)


# ---- intake -------------------------------------------------------------------------------
def test_duplicate_reports_change_no_count(store, col):
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X1", queued)
    assert _intake(store, cid, b"X1", queued) == bid  # same input again
    sha = S.sha256(b"X1")
    assert triage.intake(store, cid, "checker", "buggy", sha, enqueue_triage=queued.append,
                         outcome=fake_outcome) == bid  # a redelivered intake message
    b = store.bucket(bid)
    assert b["count"] == 1 and queued == [bid] and b["state"] == S.B_NEW
    assert store.artifact(bid)["input.min"] == b"X1"  # downloadable before minimization
    assert _intake(store, cid, b"X2", queued) == bid  # another input, same bug
    assert store.bucket(bid)["count"] == 2 and queued == [bid]
    s = store.campaign_summary(cid)
    assert s["crashes"] == 2 and s["intaken"] == 2 and s["buckets"] == 1
    assert 0 <= s["first_reproducer_s"] < 5


def test_distinct_bugs_get_distinct_buckets(store, col):
    cid, queued = _camp(store), []
    a, b = _intake(store, cid, b"X1", queued), _intake(store, cid, b"Y1", queued)
    assert a != b and queued == [a, b]
    assert store.bucket(b)["kind"] == "concurrent map writes"


def test_unreproducible_crash_makes_no_bucket(store, col):
    cid, queued = _camp(store), []
    assert _intake(store, cid, b"O1", queued) is None
    assert queued == [] and store.bucket_ids() == []
    assert store.crash("checker", "buggy", S.sha256(b"O1"))["status"] == "unreproducible"
    assert store.campaign_summary(cid)["intaken"] == 1


def test_intake_killed_after_bucket_creation_still_starts_triage(store, col):
    cid, queued = _camp(store), []
    sha, _ = store.report_crash(cid, 0, "checker", "buggy", b"X1")
    sig = col.signature("goroutine panic", "TypeError", ["stop", "add", "handle"])
    store.create_or_join_bucket(harness="checker", variant="buggy", signature=sig, input_sha256=sha, fields={})
    bid = triage.intake(store, cid, "checker", "buggy", sha, enqueue_triage=queued.append, outcome=fake_outcome)
    assert queued == [bid] and store.bucket(bid)["count"] == 1


# ---- triage steps -------------------------------------------------------------------------
def _triage_all(st, bid, owner="t1", **fix_kw):
    nxt = []
    assert triage.minimize(st, bid, owner=owner, enqueue_next=nxt.append)
    assert triage.verify(st, bid, owner=owner + "v", enqueue_next=nxt.append)
    assert triage.fix_check(st, bid, owner=owner + "f", outcome=fake_outcome, **fix_kw)
    return nxt


def test_full_triage_and_idempotent_redelivery(store, col):
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-long-input", queued)
    assert _triage_all(store, bid) == [bid, bid]
    b = store.bucket(bid)
    assert b["state"] == S.B_DONE and b["minimized_size"] == 1 and b["original_size"] == 12
    assert b["reproducible"] is True and b["verify_ok"] == b["verify_n"] == 10 and b["fixed"] is True
    assert b["preemptions_after"] == 0 and b["preemptions_before"] == 2
    assert store.artifact(bid) == {"input.min": b"X", "input.orig": b"X-long-input", "repro.json": b"{}"}
    store.update_job(cid, 0, state=S.JOB_DONE)
    assert store.campaign_summary(cid)["settled"]
    # redeliveries of every step change nothing
    nxt = []
    assert not triage.minimize(store, bid, owner="t1", enqueue_next=nxt.append)
    assert not triage.verify(store, bid, owner="t9", enqueue_next=nxt.append)
    assert not triage.fix_check(store, bid, owner="t9", outcome=fake_outcome)
    assert nxt == [] and store.bucket(bid)["state"] == S.B_DONE


def test_the_buckets_message_is_its_reproducers(store, col):
    """The bucket's message (crashes, the web page) is the minimized reproducer's, as its Go crash
    state, trace and dump are: a newcomer's race bucket page said goroutine 2 read where the
    reproducer's report, on the same page, had goroutine 3 read (the first crash's message)."""
    def outcome(harness, variant, data, *, trace=False):
        return {**_outcome_of(data), "message": f"race seen on {len(data)} bytes"}

    cid, queued = _camp(store), []
    sha, _ = store.report_crash(cid, 0, "checker", "buggy", b"X-long-input")
    bid = triage.intake(store, cid, "checker", "buggy", sha, enqueue_triage=queued.append, outcome=outcome)
    assert store.bucket(bid)["message"] == "race seen on 12 bytes"
    assert triage.minimize(store, bid, owner="t1", enqueue_next=lambda *a: None)
    assert triage.verify(store, bid, owner="t1v", enqueue_next=lambda *a: None)
    assert triage.fix_check(store, bid, owner="t1f", outcome=outcome)
    b = store.bucket(bid)
    assert b["minimized_size"] == 1 and b["message"] == "race seen on 1 bytes", b["message"]


def test_minimization_that_drifts_to_another_bug_is_refused(store, monkeypatch):
    """docs/TRAPS.md#g3: a 'smaller' input with another signature must not become the reproducer."""
    c = make_collector(min_to=b"Y")
    monkeypatch.setattr(triage, "_collector", lambda: c)
    monkeypatch.setattr(triage, "fix_variant", lambda h, v: "fixed")
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-long", queued)
    _triage_all(store, bid)
    b = store.bucket(bid)
    assert b["minimized_size"] == 6 and store.artifact(bid)["input.min"] == b"X-long"


def test_a_reproducer_that_fails_3_of_10_is_recorded_flaky_not_reproducible(store, col, monkeypatch):
    """verify says which replays failed with which signature; triage must count only the
    matches (3 of 10 here: two passed, five failed with another signature)."""
    def verify(harness, variant, data, *, n=10, expected_signature=None):
        return types.SimpleNamespace(reproducible=False, first_divergence=4,
                                     signatures=[expected_signature] * 3 + [None] * 2 + ["other"] * 5)
    monkeypatch.setattr(col, "verify", verify)
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-flaky", queued)
    _triage_all(store, bid)
    b = store.bucket(bid)
    assert b["reproducible"] is False and b["verify_ok"] == 3 and b["verify_n"] == 10 and b["flaky"] is True, b
    from fuzzfarm.collector.artifact import reproducibility
    assert reproducibility(b) == "flaky (3/10)"


def test_a_step_held_by_another_task_is_skipped(store, col):
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X1", queued)
    assert store.acquire_lease(f"{bid}:minimize", "other-task", 60)
    nxt = []
    assert not triage.minimize(store, bid, owner="dup", enqueue_next=nxt.append)
    assert triage.minimize(store, bid, owner="other-task", enqueue_next=nxt.append)  # its redelivery goes on
    assert nxt == [bid]


def test_fail_bucket_keeps_bucket_and_settles(store, col):
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X1", queued)
    triage.fail_bucket(store, bid, "minimize: gave up after 3 deliveries")
    b = store.bucket(bid)
    assert b["state"] == S.B_FAILED and "gave up" in b["error"] and store.artifact(bid)
    assert store.campaign_summary(cid)["settled"] is False  # jobs still queued
    store.update_job(cid, 0, state=S.JOB_DONE)
    assert store.campaign_summary(cid)["settled"]


# ---- fuzz slices --------------------------------------------------------------------------
@dataclasses.dataclass
class FakeStats:
    execs: int = 0
    exec_per_s: float = 0.0
    cov: int = 0
    ft: int = 0
    corpus_size: int = 0
    crashes: int = 0
    elapsed_s: float = 0.0


class FakeEngine:
    def __init__(self, crashes=(), error=None, execs=100):
        self.crashes, self.error, self.execs, self.calls = list(crashes), error, execs, []

    def run_fuzz_job(self, *, harness, variant, strategy, seed, duration_s, corpus, workdir, on_crash, on_stats,
                     timeout_s, rss_limit_mb, stats_interval_s=1.0):
        self.calls.append({"seed": seed, "duration_s": duration_s, "corpus": list(corpus)})
        for c in self.crashes:
            on_crash(types.SimpleNamespace(data=c, artifact="crash", log_tail=""))
        on_stats(FakeStats(execs=self.execs // 2, elapsed_s=1.0))
        return types.SimpleNamespace(stats=FakeStats(execs=self.execs, elapsed_s=duration_s),
                                     new_corpus=[b"c1", b"c2"], crashes=len(self.crashes), restarts=1,
                                     error=self.error, stopped=False)


@pytest.fixture
def checker_hash():
    from fuzzfarm import harness as H
    try:
        return H.get("checker").source_hash()
    except H.HarnessError as e:
        pytest.skip(str(e))


def _spec(st, cid, h):
    return jobs.job_spec(cid, 0, st.campaign(cid))


def test_slice_runs_reports_crashes_once_and_finishes(store, checker_hash):
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 3.0, "harness_hash": checker_hash, "version": "0.1.0"})
    intakes, nexts = [], []
    eng = FakeEngine(crashes=[b"X1", b"X1", b"X2"])
    spec = _spec(store, cid, checker_hash)
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: intakes.append(a),
                          enqueue_next=lambda *a: nexts.append(a), engine=eng) == "done"
    assert [a[3] for a in intakes] == [S.sha256(b"X1"), S.sha256(b"X2")]
    job = store.job(cid, 0)
    assert job["state"] == S.JOB_DONE and job["execs_base"] == 100 and nexts == []
    assert sorted(store.corpus("checker")) == [b"c1", b"c2"]
    # a duplicate delivery of the same slice does nothing
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: intakes.append(a),
                          enqueue_next=lambda *a: nexts.append(a), engine=eng) == "skipped"
    assert len(eng.calls) == 1


def test_long_jobs_run_in_slices(store, checker_hash, monkeypatch):
    monkeypatch.setattr(config, "MAX_SLICE_S", 2.0)
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 5.0, "harness_hash": checker_hash, "version": "0.1.0"})
    eng, nexts = FakeEngine(), []
    spec = _spec(store, cid, checker_hash)
    while spec is not None:
        nexts.clear()
        jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, d: nexts.append(s),
                       engine=eng)
        spec = nexts[0] if nexts else None
    assert [c["duration_s"] for c in eng.calls] == [2.0, 2.0, 1.0]
    assert len({c["seed"] for c in eng.calls}) == 3  # every slice explores with its own seed
    job = store.job(cid, 0)
    assert job["state"] == S.JOB_DONE and job["execs_base"] == 300 and job["elapsed_base"] == 5.0
    assert eng.calls[1]["corpus"]  # later slices start from the shared corpus


def test_version_skew_hands_the_slice_back_then_fails_the_job_clearly(store, checker_hash, monkeypatch):
    from fuzzfarm.farm import skew
    monkeypatch.setattr(skew, "HANDBACKS", 2)
    monkeypatch.setattr(skew, "BACKOFF_S", 0.0)
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 3.0, "harness_hash": "0" * 64, "version": "0.1.0"})
    eng, nexts = FakeEngine(), []
    spec = _spec(store, cid, None)
    for _ in range(2):  # handed back for another worker: the same slice published again, the job untouched
        assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, t: nexts.append(s),
                              engine=eng, worker="w1@h") == "handed back"
    assert nexts == [spec, spec] and store.job(cid, 0)["state"] == S.JOB_QUEUED
    assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, t: nexts.append(s),
                          engine=eng, worker="w1@h") == "failed"
    job = store.job(cid, 0)
    assert job["state"] == S.JOB_FAILED and eng.calls == [] and len(nexts) == 2
    assert job["error"].startswith(f"harness checker: no worker has hash {'0' * 12}…; workers have "
                                   f"{checker_hash[:12]}… (1 of them)"), job["error"]
    assert store.campaign_summary(cid)["status"] == "failed"


def test_unknown_harness_on_the_worker_fails_the_job(store):
    cid = store.create_campaign({"harness": "no-such", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 3.0, "harness_hash": "0" * 64, "version": "0.1.0"})
    assert jobs.run_slice(store, jobs.job_spec(cid, 0, store.campaign(cid)), enqueue_intake=lambda *a: None,
                          enqueue_next=lambda *a: None, engine=FakeEngine()) == "failed"
    assert "unknown harness 'no-such'" in store.job(cid, 0)["error"]


def test_fuzzer_that_never_ran_fails_the_job(store, checker_hash):
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 3.0, "harness_hash": checker_hash, "version": "0.1.0"})
    assert jobs.run_slice(store, _spec(store, cid, checker_hash), enqueue_intake=lambda *a: None,
                          enqueue_next=lambda *a: None, engine=FakeEngine(error="atheris died", execs=0)) == "failed"
    assert "atheris died" in store.job(cid, 0)["error"]


def test_a_hazard_the_fixed_variant_keeps_is_not_called_fixed(store, col):
    """checker declares P3(b) in FIXED_MAY_FAIL: its reproducer passing on ``fixed`` only means
    the schedule does not carry over, so the bucket must not say the fix holds."""
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"W-reuse", queued)
    _triage_all(store, bid)
    b = store.bucket(bid)
    assert b["state"] == S.B_DONE and b["fixed"] is False and b["fix_keeps"] is True, b
    assert "kept by the fix" in b["fix_kind"]
    p3b = "WaitGroup reused before previous Wait returned"
    p3b_state = ["Group.wait", "WaitForControlledPods.gather", "execute.main"]
    assert triage.kept_by_fix("checker", p3b, p3b_state)
    assert not triage.kept_by_fix("checker", "goroutine panic", p3b_state)
    assert not triage.kept_by_fix("checker", p3b, ["Group.add", "ObjectChecker.run", "execute.main"])  # a new reuse bug
    assert not triage.kept_by_fix("cluster-builder", p3b, p3b_state)


def test_a_kept_hazard_that_also_fails_on_fixed_is_kept_not_merely_unfixed(store, col, monkeypatch):
    """The demo's P3(b) bucket: its original input fails on ``fixed`` with the same hazard. The
    bucket must still say "kept by the fix", not a bare fixed=False."""
    p3b = "WaitGroup reused before previous Wait returned"
    monkeypatch.setattr(col, "fix_check", lambda harness, fv, data, *, expected_signature=None: {
        "variant": fv, "failed": True, "kind": p3b, "crash_type": p3b, "signature": expected_signature,
        "fixed": False})
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"W-reuse-again", queued)
    _triage_all(store, bid)
    b = store.bucket(bid)
    assert b["fixed"] is False and b["fix_keeps"] is True, b
    assert "kept by the fix" in b["fix_kind"] and "fails on the fixed variant too" in b["fix_kind"]


def test_declared_reads_literals_from_the_harness_source_without_importing_it():
    from fuzzfarm.harness.target import resolve

    t = resolve("checker")
    assert t.declared_variants() == ("buggy", "fixed")
    assert "WaitGroup reused before previous Wait returned at Group.wait <- WaitForControlledPods.gather <- " \
           "execute.main" in t.declared("FIXED_MAY_FAIL")  # a frozenset literal, read from the source
    assert t.declared("NO_SUCH_NAME") is None
    assert resolve("cluster-builder").declared("FIXED_MAY_FAIL") is None


def test_a_flaky_bucket_is_fix_checked_with_its_own_rate_not_the_evidence_started_ahead(store, col, monkeypatch):
    """The verify step starts the fix evidence ahead as for a reproducer that failed every replay
    (farm/triage_ahead.py). A bucket that failed 3 of 10 must get evidence judged on 3/10."""
    calls = []
    real = col.fix_verify

    def fix_verify(harness, fv, minimized, *, buggy_ok=1, buggy_n=1, **kw):
        calls.append((buggy_ok, buggy_n))
        ev = real(harness, fv, minimized, **kw)
        ev["buggy_rate"] = [buggy_ok, buggy_n]
        return ev

    def verify(harness, variant, data, *, n=10, expected_signature=None):
        return types.SimpleNamespace(reproducible=False, first_divergence=4,
                                     signatures=[expected_signature] * 3 + [None] * 7)
    monkeypatch.setattr(col, "fix_verify", fix_verify)
    monkeypatch.setattr(col, "verify", verify)
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-flaky-ahead", queued)
    _triage_all(store, bid)
    b = store.bucket(bid)
    # started ahead, then computed with the real rate: 3 of 10 verify replays and the intake's 1 of 1
    assert (10, 10) in calls and (4, 11) in calls, calls
    assert b["fix_evidence"]["buggy_rate"] == [4, 11] == b["buggy_rate"], b["fix_evidence"]


# ---- the proof as its own step -----------------------------------------------------------------
def _with_proof(col, monkeypatch, calls):
    """The stand-in collector with a proof that records each search."""
    def prove_fixed(harness, fixed_variant, data, *, max_wall):
        calls.append(data)
        return {"exhausted": True, "schedules": 3, "runs": 3, "bound": 2, "line": "proven: 3 schedules"}
    monkeypatch.setattr(col, "prove_fixed", prove_fixed, raising=False)


def test_with_a_prove_step_the_verdict_and_artifact_are_stored_before_the_proof(store, col, monkeypatch):
    """fix_check with enqueue_prove (the farm's task) stores the fix verdict and the final
    artifact, moves the bucket to ``proving`` and queues the proof; only prove_step searches."""
    from fuzzfarm.farm import triage_ahead
    monkeypatch.setattr(triage_ahead, "ENABLED", False)  # every piece computed in its step, in turn
    calls, proves = [], []
    _with_proof(col, monkeypatch, calls)
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-proof-later", queued)
    _triage_all(store, bid, enqueue_prove=proves.append)
    b = store.bucket(bid)
    assert proves == [bid] and calls == [], (proves, calls)  # queued, not searched here
    assert b["state"] == S.B_PROVING and b["fixed"] is True and b["fix_verdict"] == "fixed"
    assert "fix_proof" not in b and store.artifact(bid)["input.min"] == b"X"
    store.update_job(cid, 0, state=S.JOB_DONE)
    assert not store.campaign_summary(cid)["settled"]  # a bucket still proving is not settled
    assert not triage.fix_check(store, bid, owner="t9", outcome=fake_outcome, enqueue_prove=proves.append)
    assert triage.prove_step(store, bid, owner="t4")
    b = store.bucket(bid)
    assert calls == [b"X"] and b["state"] == S.B_DONE and b["fix_proof_line"] == "proven: 3 schedules"
    assert b["fix_proof"]["exhausted"] is True and store.campaign_summary(cid)["settled"]
    assert not triage.prove_step(store, bid, owner="t9") and calls == [b"X"]  # a redelivery searches nothing


def test_the_proof_is_searched_once_by_the_prove_step(store, col, monkeypatch):
    """Neither the verify step (farm/triage_ahead.py) nor fix_check starts the proof: the prove
    step, in whichever collect process has a proof slot, searches once."""
    calls, proves = [], []
    _with_proof(col, monkeypatch, calls)
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-proof-ahead", queued)
    _triage_all(store, bid, enqueue_prove=proves.append)
    assert triage.prove_step(store, bid, owner="t4")
    assert calls == [b"X"], calls  # one search
    assert store.bucket(bid)["fix_proof_line"] == "proven: 3 schedules"


def test_without_a_proof_to_run_fix_check_ends_the_triage_itself(store, col, monkeypatch):
    """FUZZFARM_PROVE_BUDGET_S=0: no proving state and no prove step to wait for."""
    calls, proves = [], []
    _with_proof(col, monkeypatch, calls)
    monkeypatch.setenv("FUZZFARM_PROVE_BUDGET_S", "0")
    cid, queued = _camp(store), []
    bid = _intake(store, cid, b"X-no-proof", queued)
    _triage_all(store, bid, enqueue_prove=proves.append)
    assert proves == [] and calls == [] and store.bucket(bid)["state"] == S.B_DONE
