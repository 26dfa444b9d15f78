"""Two buckets of one proof key (farm/triage.py ``proof_key``: one root-cause group, one scenario,
one fixed variant) reaching their proofs at once on two collector processes search once: the
first holds the key's claim (``proof_claim``, a lease renewed while it searches), the other
finds it held, frees its process and takes the stored proof when it lands (``fix_proof_of``).
A claimant killed mid-search does not leave the other bucket unproven: its claim is taken over.

``ff-slowproof``: inputs LEFT and RIGHT fail in ``torn`` from two readers (two buckets, one
group, one scenario: the whole input is the schedule); its ``fixed`` variant's search never
exhausts, so each search takes its whole budget (4 CPU s, FUZZFARM_PROVE_GIVE_UP_EARLY=0). A real
redis-server and a real collect worker of 3 processes (2 proof slots), started here. The test
triages both buckets up to ``proving`` itself, then queues both proofs at once. What it counts is
what the product records: a bucket whose proof was searched for it has no ``fix_proof_of``."""

from __future__ import annotations

import contextlib
import uuid

import faultlib

from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config

LEFT = bytes.fromhex("4420823cfde6f1c26b30f90e")  # torn <- check_left
RIGHT = bytes.fromhex("84945f764b735f42246d960f")  # torn <- check_right
BUDGET_S = "4"


@contextlib.contextmanager
def _farm(tmp_path, monkeypatch):
    """(Store, Worker): a fresh redis-server and a 3-process collect worker; this process publishes to it."""
    from fuzzfarm.farm import triage
    from fuzzfarm.farm.embedded import RedisServer, Worker
    _need_redis()
    for k, v in (("VERIFY_RUNS", 3), ("MINIMIZE_BUDGET_S", 3), ("FIX_RANDOM_RUNS", 5), ("FIX_PCT_RUNS", 5)):
        monkeypatch.setattr(triage, k, v)
    monkeypatch.setenv("FUZZFARM_PROVE_BUDGET_S", BUDGET_S)  # the proof key holds the budget: as the worker's
    (tmp_path / "redis").mkdir()
    with RedisServer(str(tmp_path / "redis")) as redis:
        w = Worker(redis.url, ["collect"], concurrency=3, name=f"claim-{uuid.uuid4().hex[:6]}",
                   logfile=str(tmp_path / "collect.log"),
                   env=faultlib.worker_env(FUZZFARM_PROVE_BUDGET_S=BUDGET_S, FUZZFARM_PROVE_GIVE_UP_EARLY="0",
                                           FUZZFARM_FIX_RANDOM_RUNS="5", FUZZFARM_FIX_PCT_RUNS="5")).start()
        try:
            with faultlib.publishing_to(redis.url) as st:
                w.wait_ready()
                yield st, w
        finally:
            faultlib.hard_stop(w)
            w.stop()


def _two_buckets_proving(st) -> tuple[str, str, str]:
    """Buckets of LEFT and RIGHT triaged here up to ``proving`` (their proofs not queued), and their proof key."""
    from fuzzfarm.farm import triage
    cid = st.create_campaign({"harness": "ff-slowproof", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                              "duration_s": 1.0, "harness_hash": faultlib.harness_hash("ff-slowproof"), "version": "0"})
    bids = []
    for data in (LEFT, RIGHT):
        sha, _ = st.report_crash(cid, 0, "ff-slowproof", "buggy", data)
        bid = triage.intake(st, cid, "ff-slowproof", "buggy", sha, enqueue_triage=lambda _b: None)
        assert triage.minimize(st, bid, owner="m", enqueue_next=lambda _b: None)
        assert triage.verify(st, bid, owner="v", enqueue_next=lambda _b: None)
        assert triage.fix_check(st, bid, owner="f", enqueue_prove=lambda _b: None)
        assert st.bucket(bid)["state"] == S.B_PROVING, st.bucket(bid)
        bids.append(bid)
    x, y = bids
    bx, by = st.bucket(x), st.bucket(y)
    assert x != y and bx["crash_state"][:2] == ["torn", "check_left"] and by["crash_state"][:2] == ["torn", "check_right"]
    key = triage.proof_key(bx, "fixed")
    assert key and key == triage.proof_key(by, "fixed"), (bx, by)  # one group, one scenario: one proof
    return x, y, key


def _queue_both_proofs(x: str, y: str) -> None:
    from fuzzfarm.farm import tasks
    for bid in (x, y):  # at once: the worker has two proof slots free
        tasks._enqueue_triage(tasks.prove, config.PROOF_PRIORITY)(bid)


def _both_proven(st, x: str, y: str, timeout: float) -> tuple[dict, dict]:
    faultlib.wait_until(lambda: all((st.bucket(b) or {}).get("state") in (S.B_DONE, S.B_FAILED) for b in (x, y)),
                        timeout, "both buckets' proofs")
    bx, by = st.bucket(x), st.bucket(y)
    for b in (bx, by):
        assert b["state"] == S.B_DONE and b["fix_proof"] and not b["fix_proof"].get("error"), b
        assert "not exhausted" in b["fix_proof_line"], b["fix_proof_line"]
    return bx, by


def _one_search(bx: dict, by: dict) -> None:
    """Exactly one of the two buckets searched; the other names it and shows its proof."""
    searched = [b for b in (bx, by) if not b.get("fix_proof_of")]
    assert len(searched) == 1, ("searched for", [b["id"] for b in searched])
    (other,) = [b for b in (bx, by) if b.get("fix_proof_of")]
    assert other["fix_proof_of"] == searched[0]["id"] and other["fix_proof"] == searched[0]["fix_proof"], other


def test_two_buckets_of_one_proof_key_at_once_search_once(site, tmp_path, monkeypatch):
    with _farm(tmp_path, monkeypatch) as (st, _w):
        x, y, _key = _two_buckets_proving(st)
        _queue_both_proofs(x, y)
        _one_search(*_both_proven(st, x, y, 180))


def test_a_killed_claimant_leaves_the_proof_to_the_other_bucket(site, tmp_path, monkeypatch):
    from fuzzfarm.farm import triage
    with _farm(tmp_path, monkeypatch) as (st, w):
        x, y, key = _two_buckets_proving(st)
        _queue_both_proofs(x, y)
        holder = faultlib.wait_until(lambda: st.lease_holder(triage.proof_claim(key)), 60, "a proof's claim")
        pid = int(holder.split(" ")[2])  # the delivery's pool process (lease.delivery_owner)
        assert pid in faultlib.worker_pool_children(w.proc.pid), (holder, faultlib.worker_pool_children(w.proc.pid))
        assert st.proof(key) is None  # killed mid-search: nothing stored yet
        assert faultlib.kill(pid)
        bx, by = _both_proven(st, x, y, 240)
        _one_search(bx, by)  # the search that finished: the other bucket still took it, not a second one
