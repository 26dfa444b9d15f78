"""One proof per (group, scenario, fixed variant's source): farm/triage.py ``proof_key``. Two
buckets of one root-cause group whose reproducers decode to one scenario share the proof the
first one searched (``fix_proof_of`` names it); another group, or another scenario, searches its
own. Real redis-server; the collector stand-ins of test_triage_jobs."""

from __future__ import annotations

import test_triage_jobs as T
from fuzzfarm.farm import triage
from test_triage_jobs import _camp, _with_proof, col  # noqa: F401 - col is a fixture


def _outcome(data: bytes, *, trace: bool = False) -> dict:
    """X, Z and Q: one group (a TypeError panic in ``stop``) reached from ``add`` / ``delete`` /
    ``dispose``, three signatures; Y: another group. The scenario is the input's last byte."""
    o = dict(T._outcome_of(b"Y" if data[:1] == b"Y" else b"X"))
    if data[:1] in b"ZQ":
        o["crash_state"] = ["stop", "delete" if data[:1] == b"Z" else "dispose", "handle"]
    if o.get("failed"):
        o["scenario_key"] = "scenario-" + data[-1:].hex()
    return o


def _bucket(st, cid, data: bytes) -> str:
    sha, _ = st.report_crash(cid, 0, "checker", "buggy", data)
    bid = triage.intake(st, cid, "checker", "buggy", sha, enqueue_triage=lambda _b: None,
                        outcome=lambda h, v, d, *, trace=False: _outcome(d))
    proves = []
    assert triage.minimize(st, bid, owner="m", enqueue_next=lambda _b: None)
    assert triage.verify(st, bid, owner="v", enqueue_next=lambda _b: None)
    assert triage.fix_check(st, bid, owner="f", outcome=lambda h, v, d, *, trace=False: _outcome(d),
                            enqueue_prove=proves.append)
    assert proves == [bid]
    assert triage.prove_step(st, bid, owner="p")
    return bid


def test_buckets_of_one_group_and_scenario_share_one_proof(store, col, monkeypatch):
    # the minimizer keeps the input (its last byte is the scenario)
    monkeypatch.setattr(col, "minimize", lambda h, v, data, *, expected_signature, budget_s: T.MinRes(
        data, len(data), len(data), 0, 0, 1, expected_signature))
    monkeypatch.setattr(col, "verify", lambda h, v, data, *, n=10, expected_signature=None: __import__("types").SimpleNamespace(
        reproducible=True, signatures=[expected_signature] * n, first_divergence=None))
    calls = []
    _with_proof(col, monkeypatch, calls)
    cid = _camp(store)
    x = _bucket(store, cid, b"X\x01")
    z = _bucket(store, cid, b"Z\x01")  # same group, same scenario: x's proof
    assert x != z and store.bucket(x)["signature"] != store.bucket(z)["signature"]
    assert calls == [b"X\x01"], calls
    bz = store.bucket(z)
    assert bz["fix_proof_of"] == x and bz["fix_proof"] == store.bucket(x)["fix_proof"]
    assert bz["fix_proof_line"] == "proven: 3 schedules" and bz["state"] == "done"
    assert not store.bucket(x).get("fix_proof_of")
    _bucket(store, cid, b"Q\x02")  # the same group, another scenario: its own search
    _bucket(store, cid, b"Y\x01")  # another group: its own search
    assert calls == [b"X\x01", b"Q\x02", b"Y\x01"], calls
