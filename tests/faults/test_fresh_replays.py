"""Triage runs the proof, the fix evidence and the final replay beside the verify replays
(farm/triage_ahead.py); the replays counted for "reproducible N/N" must still be N fresh
processes. ``ff-once`` fails only in the first execution of a process: replayed in one warm
process it would fail once in ten, so only fresh processes give N/N (5 here)."""

from __future__ import annotations

from fuzzfarm.farm import store as S


def test_verify_beside_the_fix_check_counts_only_fresh_process_replays(store, site, monkeypatch):
    from fuzzfarm.farm import triage, triage_ahead
    monkeypatch.setattr(triage, "VERIFY_RUNS", 5)
    monkeypatch.setattr(triage, "MINIMIZE_BUDGET_S", 3)
    monkeypatch.setattr(triage, "FIX_RANDOM_RUNS", 5)
    monkeypatch.setattr(triage, "FIX_PCT_RUNS", 5)
    cid = store.create_campaign({"harness": "ff-once", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0"})
    sha, _ = store.report_crash(cid, 0, "ff-once", "buggy", b"O1")
    bid = triage.intake(store, cid, "ff-once", "buggy", sha, enqueue_triage=lambda _b: None)
    assert bid
    assert triage.minimize(store, bid, owner="m", enqueue_next=lambda _b: None)
    assert triage.verify(store, bid, owner="v", enqueue_next=lambda _b: None)
    b = store.bucket(bid)
    assert b["verify_ok"] == 5 and b["verify_n"] == 5 and b["reproducible"] is True and not b["flaky"], b
    # the fix check's pieces were started by the verify step, and the fix check takes them
    key = triage._ahead_key(bid, S.unb64(b["minimized_b64"]), "fixed")
    with triage_ahead._lock:
        assert set(triage_ahead._ahead[key]) == {"outcome", "evidence"}  # the proof is the prove step's
    assert triage.fix_check(store, bid, owner="f")
    assert key not in triage_ahead._ahead
    b = store.bucket(bid)
    assert b["state"] == S.B_DONE and b["fix_verdict"] == "fixed" and b["fix_proof"]["bound"] == 2, b
