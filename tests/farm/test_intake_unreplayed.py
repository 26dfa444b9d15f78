"""Intake by the fuzz engine's signature (farm/triage.py ``_join_by_engine_signature``): a crash
whose engine signature names an existing bucket of the same harness, variant and verdict
context, verified, not flaky, and whose engine word a replay of a joining input confirmed once,
joins it without a replay, and says so; everything else is replayed as before. Real
redis-server; the collector stand-ins of test_triage_jobs (the fresh-process version with a
harness that makes the engine lie: tests/faults/test_engine_signature_lie.py)."""

from __future__ import annotations

import pytest

from fuzzfarm.farm import store as S
from fuzzfarm.farm import triage
from test_triage_jobs import _camp, _outcome_of, col, make_collector  # noqa: F401 - col is a fixture

SIG = make_collector().signature


def _sig_of(data: bytes) -> str:
    o = _outcome_of(data)
    return SIG(o["kind"], o["exc_class"], o["crash_state"])


class Replays:
    """The intake's replay, counting the inputs it replays."""

    def __init__(self):
        self.inputs: list[bytes] = []

    def __call__(self, harness, variant, data, *, trace=False):
        self.inputs.append(data)
        return _outcome_of(data)


def _verified(st, bid):
    """Bucket ``bid`` minimized and verified (the stand-in collector: reproducible, not flaky)."""
    assert triage.minimize(st, bid, owner="m", enqueue_next=lambda _b: None)
    assert triage.verify(st, bid, owner="v", enqueue_next=lambda _b: None)
    assert triage.known_steady(st.bucket(bid))


def _known(st, cid, rep, first=b"X1", second=b"X0"):
    """A verified bucket of ``first`` whose engine word ``second``'s replay confirmed."""
    bid = _report(st, cid, first, engine_signature=_sig_of(first), replays=rep)
    _verified(st, bid)
    assert _report(st, cid, second, engine_signature=_sig_of(second), replays=rep) == bid
    assert st.bucket(bid)["engine_checked"] == S.sha256(second)
    return bid


def _report(st, cid, data, engine_signature="", artifact="crash", replays=None, queued=None):
    sha, _ = st.report_crash(cid, 0, "checker", "buggy", data, artifact=artifact, engine_signature=engine_signature)
    return triage.intake(st, cid, "checker", "buggy", sha, enqueue_triage=(queued if queued is not None else []).append,
                         outcome=replays or Replays())


def test_a_crash_signed_with_a_known_bucket_joins_it_without_a_replay_and_says_so(store, col):
    cid, rep = _camp(store), Replays()
    bid = _known(store, cid, rep)
    assert rep.inputs == [b"X1", b"X0"]  # the creator, then the bucket's one re-check
    assert store.bucket(bid).get("joined_unreplayed") in (None, "", 0)
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid
    assert rep.inputs == [b"X1", b"X0"]  # joined without a replay
    b = store.bucket(bid)
    assert b["count"] == 3 and b["joined_unreplayed"] == 1
    c = store.crash("checker", "buggy", S.sha256(b"X2"))
    assert c["joined"] == "engine signature" and c["replays"] == "0" and c["bucket"] == bid
    assert store.crash("checker", "buggy", S.sha256(b"X1")).get("joined") is None  # the replayed ones are not
    assert store.crash("checker", "buggy", S.sha256(b"X0")).get("joined") is None
    assert store.campaign_summary(cid)["intaken"] == 3
    # the same input reported again counts nothing twice
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid
    assert store.bucket(bid)["count"] == 3 and store.bucket(bid)["joined_unreplayed"] == 1


def test_a_bucket_not_yet_verified_or_not_yet_rechecked_gets_every_crash_replayed(store, col):
    cid, rep = _camp(store), Replays()
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid  # state new
    assert rep.inputs == [b"X1", b"X2"] and not store.bucket(bid).get("joined_unreplayed")
    # X2's replay confirmed the engine's word for this bucket: the re-check is done
    assert store.bucket(bid)["engine_checked"] == S.sha256(b"X2")
    _verified(store, bid)
    assert _report(store, cid, b"X3", engine_signature=_sig_of(b"X3"), replays=rep) == bid
    assert rep.inputs == [b"X1", b"X2"] and store.bucket(bid)["joined_unreplayed"] == 1


def test_the_creators_own_replay_is_not_the_recheck(store, col):
    """The creator was replayed because it was new; the re-check is of an input that would
    join on the engine's word alone."""
    cid, rep = _camp(store), Replays()
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    _verified(store, bid)
    assert not store.bucket(bid).get("engine_checked")
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid
    assert rep.inputs == [b"X1", b"X2"]


def test_a_flaky_bucket_keeps_the_replay(store, col, monkeypatch):
    """A bucket whose verify replays did not all fail: each further crash's replay is part of
    its rate, so none joins on the engine's word."""
    import types

    cid, rep = _camp(store), Replays()
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    assert _report(store, cid, b"X0", engine_signature=_sig_of(b"X0"), replays=rep) == bid  # the re-check

    def verify(harness, variant, data, *, n=10, expected_signature=None):
        o = _outcome_of(data)
        s = SIG(o["kind"], o["exc_class"], o["crash_state"])
        return types.SimpleNamespace(reproducible=False, signatures=[s] * 3 + [None] * (n - 3), first_divergence=None)

    monkeypatch.setattr(col, "verify", verify)
    assert triage.minimize(store, bid, owner="m", enqueue_next=lambda _b: None)
    assert triage.verify(store, bid, owner="v2", enqueue_next=lambda _b: None)
    b = store.bucket(bid)
    assert b["flaky"] is True and b["engine_checked"] and b["state"] == S.B_FIX_CHECKING
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid
    assert rep.inputs[-1] == b"X2" and not store.bucket(bid).get("joined_unreplayed")


def test_a_crash_without_an_engine_signature_or_of_an_unknown_one_is_replayed(store, col):
    cid, rep, queued = _camp(store), Replays(), []
    a = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep, queued=queued)
    b = _report(store, cid, b"Y1", engine_signature=_sig_of(b"Y1"), replays=rep, queued=queued)  # no such bucket yet
    assert _report(store, cid, b"X3", replays=rep, queued=queued) == a  # no engine word: replayed
    assert rep.inputs == [b"X1", b"Y1", b"X3"] and a != b and queued == [a, b]
    assert store.crash("checker", "buggy", S.sha256(b"X3")).get("joined") is None
    assert store.bucket(a).get("joined_unreplayed") in (None, "", 0)


@pytest.mark.parametrize("artifact", ["timeout", "oom", "leak"])
def test_a_hang_or_resource_artifact_is_never_joined_by_a_signature(store, col, artifact):
    cid, rep = _camp(store), Replays()
    bid = _known(store, cid, rep)
    # an engine that (wrongly) signed a resource artifact: its path still replays it
    _report(store, cid, b"X4", engine_signature=_sig_of(b"X1"), artifact=artifact, replays=rep)
    assert rep.inputs[-1] == b"X4"
    assert store.crash("checker", "buggy", S.sha256(b"X4")).get("joined") is None
    assert store.bucket(bid).get("joined_unreplayed") in (None, "", 0)


@pytest.mark.parametrize("other", ["harness_hash", "max_starvation_s"])
def test_a_crash_of_another_verdict_context_is_replayed_and_gets_its_recheck(store, col, other):
    cid, rep, queued = _camp(store), Replays(), []
    bid = _known(store, cid, rep)
    spec = {"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1, "duration_s": 5.0,
            "harness_hash": "h" * 64, "version": "0.1.0"}
    spec.update({"harness_hash": "g" * 64} if other == "harness_hash" else {"max_starvation_s": "none"})
    cid2 = store.create_campaign(spec)
    assert _report(store, cid2, b"X2", engine_signature=_sig_of(b"X2"), replays=rep, queued=queued) == bid
    assert rep.inputs == [b"X1", b"X0", b"X2"]  # replayed: its verdict context differs
    assert store.crash("checker", "buggy", S.sha256(b"X2")).get("joined") is None
    assert len(queued) == 1 and queued[0].startswith(bid + "-")  # the context record's triage


def test_an_engine_signature_a_replay_contradicts_makes_every_later_crash_replayed(store, col):
    """The engine's word is only taken while no replay of the harness ever contradicted it: a
    report that says bug X of an input that is bug Y, while there is no X bucket, is found out
    at its own replay, and from then on a correct-looking word is not taken either."""
    cid, rep = _camp(store), Replays()
    y = _report(store, cid, b"Y1", engine_signature=_sig_of(b"X1"), replays=rep)  # a wrong word: Y1 is bug Y
    assert store.bucket(y)["kind"] == "concurrent map writes"  # bucketed by its replay
    assert store.crash("checker", "buggy", S.sha256(b"Y1"))["engine_signature_mismatch"] == "true"
    x = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == x
    assert _report(store, cid, b"Y2", engine_signature=_sig_of(b"Y2"), replays=rep) == y
    assert rep.inputs == [b"Y1", b"X1", b"X2", b"Y2"]  # all replayed, though the later words were right
    assert not store.bucket(x).get("joined_unreplayed") and not store.bucket(y).get("joined_unreplayed")
    # another harness variant's engine is still trusted
    cid_f = store.create_campaign({"harness": "checker", "variant": "fixed", "strategy": "bytes", "jobs": 1,
                                   "duration_s": 5.0, "harness_hash": "h" * 64, "version": "0.1.0"})
    fixed = []
    for d in (b"X1", b"X0", b"X2"):
        sha, _ = store.report_crash(cid_f, 0, "checker", "fixed", d, engine_signature=_sig_of(d))
        fixed.append(triage.intake(store, cid_f, "checker", "fixed", sha, enqueue_triage=lambda _b: None, outcome=rep))
        if d == b"X0":
            _verified(store, fixed[0])
    assert rep.inputs[-1] == b"X0"  # X2 on fixed joined X1's verified, re-checked bucket unreplayed


def test_a_signature_of_another_variant_joins_nothing(store, col):
    cid, rep = _camp(store), Replays()
    cid_f = store.create_campaign({"harness": "checker", "variant": "fixed", "strategy": "bytes", "jobs": 1,
                                   "duration_s": 5.0, "harness_hash": "h" * 64, "version": "0.1.0"})
    sha, _ = store.report_crash(cid_f, 0, "checker", "fixed", b"X1", engine_signature=_sig_of(b"X1"))
    triage.intake(store, cid_f, "checker", "fixed", sha, enqueue_triage=lambda _b: None, outcome=rep)
    _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep)  # buggy: its own bucket
    assert rep.inputs == [b"X1", b"X2"]


def test_crashes_shows_how_many_inputs_joined_unreplayed(store, col):
    import io

    from rich.console import Console

    from fuzzfarm import views
    from fuzzfarm.cli import tables as T
    cid, rep = _camp(store), Replays()
    bid = _known(store, cid, rep)
    for d in (b"X2", b"X3"):
        _report(store, cid, d, engine_signature=_sig_of(d), replays=rep)
    _report(store, cid, b"X5", replays=rep)  # replayed: counted, not as unreplayed
    rows = views.bucket_rows(store, cid)
    assert [(r["id"], r["count"], r["joined_unreplayed"]) for r in rows] == [(bid, 5, 2)]
    buf = io.StringIO()
    Console(file=buf, width=200).print(T.bucket_table(rows, "buckets", wide=True))
    assert "5 (2 joined unreplayed)" in buf.getvalue()


def test_a_fuzz_slice_keeps_the_engines_signature_on_the_crash_record(store):
    """farm/jobs.py passes CrashReport.signature to the crash record; only that field lets an
    intake join unreplayed (an engine that says nothing leaves it empty)."""
    import types

    from fuzzfarm import harness as H
    from fuzzfarm.farm import jobs
    from test_triage_jobs import FakeStats

    try:
        h = H.get("checker").source_hash()
    except H.HarnessError as e:
        pytest.skip(str(e))

    class Engine:
        def run_fuzz_job(self, *, on_crash, on_stats, duration_s, **_kw):
            on_crash(types.SimpleNamespace(data=b"X1", artifact="crash", log_tail="", signature="s" * 40))
            on_crash(types.SimpleNamespace(data=b"X2", artifact="crash", log_tail=""))  # says none
            return types.SimpleNamespace(stats=FakeStats(execs=10, elapsed_s=duration_s), new_corpus=[], crashes=2,
                                         restarts=0, error=None, stopped=False)

    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 2.0, "harness_hash": h, "version": "0.1.0"})
    assert jobs.run_slice(store, jobs.job_spec(cid, 0, store.campaign(cid)), enqueue_intake=lambda *a: None,
                          enqueue_next=lambda *a: None, engine=Engine()) == "done"
    assert store.crash("checker", "buggy", S.sha256(b"X1"))["engine_signature"] == "s" * 40
    assert "engine_signature" not in store.crash("checker", "buggy", S.sha256(b"X2"))


def test_a_campaigns_rows_count_its_own_inputs(store, col):
    """A bucket found by two campaigns: each campaign's rows (crashes CID, submit --wait, its page)
    count that campaign's inputs, which agree with its status; the farm-wide rows count all (a
    newcomer saw 60 in a campaign's table whose status said 30 crashes)."""
    from fuzzfarm import views
    first, second, rep = _camp(store), _camp(store), Replays()
    bid = _known(store, first, rep)  # X1, X0
    for d in (b"X2", b"X3", b"X5"):
        _report(store, second, d, replays=rep)
    assert [(r["id"], r["count"], r["count_all"]) for r in views.bucket_rows(store, second)] == [(bid, 3, 5)]
    assert [(r["id"], r["count"], r["count_all"]) for r in views.bucket_rows(store, first)] == [(bid, 2, 5)]
    assert [(r["id"], r["count"]) for r in views.bucket_rows(store)] == [(bid, 5)]
