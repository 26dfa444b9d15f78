"""farm/triage_ahead.py's pools: proofs one at a time, beside the other pieces, never in their way."""

from __future__ import annotations

import threading

from fuzzfarm.farm import triage_ahead


def test_proofs_run_one_at_a_time_and_never_hold_up_the_next_buckets_pieces(monkeypatch):
    monkeypatch.setattr(triage_ahead, "ENABLED", True)
    release, running, most = threading.Event(), [0], [0]
    lock = threading.Lock()

    def proof():
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(10)
        with lock:
            running[0] -= 1
        return "proven"

    keys = [("b-ahead-1", "sha", "fixed"), ("b-ahead-2", "sha", "fixed"), ("b-ahead-3", "sha", "fixed")]
    futs = [triage_ahead.start(k, {"proof": proof, "evidence": lambda k=k: k[0]}) for k in keys]
    try:
        # every bucket's other piece finishes while the first proof still runs
        assert [f["evidence"].result(timeout=10) for f in futs] == [k[0] for k in keys]
        assert not futs[0]["proof"].done() and not futs[1]["proof"].running()
    finally:
        release.set()
    assert [f["proof"].result(timeout=10) for f in futs] == ["proven"] * 3
    assert most[0] == 1
    for k in keys:
        triage_ahead.take(k)


def test_keep_hands_the_futures_on_to_a_later_step():
    key = ("b-keep", "sha", "fixed")
    triage_ahead.start(key, {"proof": lambda: "p", "outcome": lambda: "o"})
    futs = triage_ahead.take(key)
    triage_ahead.keep(key, {"proof": futs["proof"]})
    again = triage_ahead.take(key)
    assert list(again) == ["proof"] and again["proof"].result(timeout=10) == "p"
    assert triage_ahead.take(key) is None
