"""A collector that cannot triage a crash or a bucket (its harness copy has another hash: version
skew) hands the message back a bounded number of times (``FUZZFARM_COLLECTOR_HANDBACKS``), then
records one clear line, keeps the input, and lets the campaign settle: it used to hand it back
forever. The product's own hand-back code on real Redis (the fault farm's)."""

from __future__ import annotations

from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys
from fuzzfarm.farm import skew, tasks, triage

OTHER = "0" * 64  # a hash no installed harness has


def test_a_crash_no_collector_can_triage_is_handed_back_a_bounded_number_of_times(fst, monkeypatch):
    monkeypatch.setattr(skew, "COLLECTOR_HANDBACKS", 3)
    monkeypatch.setattr(skew, "BACKOFF_S", 0.001)
    cid = fst.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                               "duration_s": 1.0, "harness_hash": OTHER, "version": "0"})
    sha, _ = fst.report_crash(cid, 0, "checker", "buggy", b"x")
    key = keys.crash("checker", "buggy", sha)
    republished = []

    def hand_back() -> bool:
        return tasks._collector_hands_back(fst, "checker", OTHER, ("crash", ("checker", "buggy", sha)),
                                           lambda: republished.append(1), lambda why: tasks._intake_stopped(fst, cid, "checker", "buggy", sha, why))

    for i in range(3):
        assert hand_back()
        assert len(republished) == i + 1
        assert fst.r.hget(key, "waiting").startswith("waiting for a collector with harness checker hash 000000000000")
        assert sha not in fst.r.smembers(S.P + f"campaign:{cid}:intaken")
    assert hand_back() and len(republished) == 3  # the bound: not published again
    crash = fst.crash("checker", "buggy", sha)
    assert crash["status"] == "intake failed" and crash["data"] == b"x", crash  # the input is kept
    assert "handed back 3 times and no matching collector took it" in crash["error"], crash
    assert sha in fst.r.smembers(S.P + f"campaign:{cid}:intaken")  # the campaign can settle


def test_a_bucket_no_collector_can_triage_fails_with_the_reason_after_the_bound(fst, monkeypatch):
    monkeypatch.setattr(skew, "COLLECTOR_HANDBACKS", 1)
    monkeypatch.setattr(skew, "BACKOFF_S", 0.001)
    bid, _, _, _ = fst.create_or_join_bucket(harness="checker", variant="buggy", signature="s", input_sha256="a" * 64,
                                             fields={"kind": "k", "state": S.B_NEW, "harness_hash": OTHER})
    republished = []
    for _ in range(2):
        tasks._collector_hands_back(fst, "checker", OTHER, ("bucket", (bid,)), lambda: republished.append(1),
                                    lambda why: triage.fail_bucket(fst, bid, why))
    b = fst.bucket(bid)
    assert len(republished) == 1 and b["state"] == S.B_FAILED, b
    assert "no matching collector took it" in b["error"], b
