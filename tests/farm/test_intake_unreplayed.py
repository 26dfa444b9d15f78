"""Intake by the fuzz engine's signature (farm/triage.py ``_join_by_engine_signature``): a crash
whose engine signature names an existing bucket of the same harness, variant and verdict
context joins it without a replay, and says so; everything else is replayed as before. Real
redis-server; the collector stand-ins of test_triage_jobs."""

from __future__ import annotations

import pytest

from fuzzfarm import store as S
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


def _report(st, cid, data, engine_signature="", artifact="crash", replays=None, queued=None):
    sha, _ = st.report_crash(cid, 0, "checker", "buggy", data, artifact=artifact, engine_signature=engine_signature)
    return triage.intake(st, cid, "checker", "buggy", sha, enqueue_triage=(queued if queued is not None else []).append,
                         outcome=replays or Replays())


def test_a_crash_signed_with_a_known_bucket_joins_it_without_a_replay_and_says_so(store, col):
    cid, rep = _camp(store), Replays()
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    assert rep.inputs == [b"X1"]  # no bucket yet: the first is replayed
    assert store.bucket(bid).get("joined_unreplayed") in (None, "", 0)
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid
    assert rep.inputs == [b"X1"]  # joined without a replay
    b = store.bucket(bid)
    assert b["count"] == 2 and b["joined_unreplayed"] == 1
    c = store.crash("checker", "buggy", S.sha256(b"X2"))
    assert c["joined"] == "engine signature" and c["replays"] == "0" and c["bucket"] == bid
    assert store.crash("checker", "buggy", S.sha256(b"X1")).get("joined") is None  # the replayed one is not
    assert store.campaign_summary(cid)["intaken"] == 2
    # the same input reported again counts nothing twice
    assert _report(store, cid, b"X2", engine_signature=_sig_of(b"X2"), replays=rep) == bid
    assert store.bucket(bid)["count"] == 2 and store.bucket(bid)["joined_unreplayed"] == 1


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
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    # an engine that (wrongly) signed a resource artifact: its path still replays it
    _report(store, cid, b"X4", engine_signature=_sig_of(b"X1"), artifact=artifact, replays=rep)
    assert rep.inputs[-1] == b"X4"
    assert store.crash("checker", "buggy", S.sha256(b"X4")).get("joined") is None
    assert store.bucket(bid).get("joined_unreplayed") in (None, "", 0)


@pytest.mark.parametrize("other", ["harness_hash", "max_starvation_s"])
def test_a_crash_of_another_verdict_context_is_replayed_and_gets_its_recheck(store, col, other):
    cid, rep, queued = _camp(store), Replays(), []
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep, queued=queued)
    spec = {"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1, "duration_s": 5.0,
            "harness_hash": "h" * 64, "version": "0.1.0"}
    spec.update({"harness_hash": "g" * 64} if other == "harness_hash" else {"max_starvation_s": "none"})
    cid2 = store.create_campaign(spec)
    assert _report(store, cid2, b"X2", engine_signature=_sig_of(b"X2"), replays=rep, queued=queued) == bid
    assert rep.inputs == [b"X1", b"X2"]  # replayed: its verdict context differs
    assert store.crash("checker", "buggy", S.sha256(b"X2")).get("joined") is None
    assert len(queued) == 2 and queued[1].startswith(bid + "-")  # the context record's triage


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
    for d in (b"X1", b"X2"):
        sha, _ = store.report_crash(cid_f, 0, "checker", "fixed", d, engine_signature=_sig_of(d))
        triage.intake(store, cid_f, "checker", "fixed", sha, enqueue_triage=lambda _b: None, outcome=rep)
    assert rep.inputs[-1] == b"X1"  # X2 on fixed joined X1's bucket unreplayed


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
    bid = _report(store, cid, b"X1", engine_signature=_sig_of(b"X1"), replays=rep)
    for d in (b"X2", b"X3"):
        _report(store, cid, d, engine_signature=_sig_of(d), replays=rep)
    _report(store, cid, b"X5", replays=rep)  # replayed: counted, not as unreplayed
    rows = views.bucket_rows(store, cid)
    assert [(r["id"], r["count"], r["joined_unreplayed"]) for r in rows] == [(bid, 4, 2)]
    buf = io.StringIO()
    Console(file=buf, width=200).print(T.bucket_table(rows, "buckets", wide=True))
    assert "4 (2 joined unreplayed)" in buf.getvalue()


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
