"""A bucket's steps never wait behind another bucket's proof: proofs hold at most all but one of
the collect worker's processes (farm/tasks.py ``prove``, ``config.proof_slots``), and a proof
that finds no slot free publishes its message again and frees its process.

A real collect worker with 2 processes (1 proof slot). The test holds that slot itself, as a
proof that runs long would. Bucket X (``ff-once``), triaged here up to ``proving``, has its prove
message queued; a new crash (``ff-warmlabel``) arrives. Its whole triage (intake, minimize,
verify, fix check) runs in the worker while X's proof does not start; once the slot is free,
both proofs run and both buckets end ``done``. Ordering only, no timing."""

from __future__ import annotations

import socket
import time
import uuid

import faultlib

from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config
from fuzzfarm.farm.embedded import RedisServer, Worker


def _camp(st, harness: str) -> str:
    return st.create_campaign({"harness": harness, "variant": "buggy", "strategy": "bytes", "jobs": 1,
                               "duration_s": 1.0, "harness_hash": faultlib.harness_hash(harness), "version": "0"})


def test_a_buckets_triage_runs_while_proofs_hold_their_slots(site, tmp_path, monkeypatch):
    _need_redis()
    from fuzzfarm.farm import tasks, triage
    for k, v in (("VERIFY_RUNS", 3), ("MINIMIZE_BUDGET_S", 3), ("FIX_RANDOM_RUNS", 5), ("FIX_PCT_RUNS", 5)):
        monkeypatch.setattr(triage, k, v)
    name = f"slots-{uuid.uuid4().hex[:6]}"
    (tmp_path / "redis").mkdir()
    with RedisServer(str(tmp_path / "redis")) as redis:
        w = Worker(redis.url, ["collect"], concurrency=2, name=name, logfile=str(tmp_path / "collect.log"),
                   env=faultlib.worker_env(FUZZFARM_PROVE_BUDGET_S="1", FUZZFARM_FIX_RANDOM_RUNS="5",
                                           FUZZFARM_FIX_PCT_RUNS="5")).start()
        try:
            with faultlib.publishing_to(redis.url) as st:
                w.wait_ready()
                # the one proof slot of this 2-process worker, held as by a long proof
                slot = st.take_slot(f"proof-slot:{name}@{socket.gethostname()}", "a long proof",
                                    config.proof_slots(2), 600)
                assert slot and config.proof_slots(2) == 1
                cid_x = _camp(st, "ff-once")
                sha, _ = st.report_crash(cid_x, 0, "ff-once", "buggy", b"O1")
                x = triage.intake(st, cid_x, "ff-once", "buggy", sha, enqueue_triage=lambda _b: None)
                assert triage.minimize(st, x, owner="m", enqueue_next=lambda _b: None)
                assert triage.verify(st, x, owner="v", enqueue_next=lambda _b: None)
                assert triage.fix_check(st, x, owner="f", enqueue_prove=tasks._enqueue_triage(tasks.prove,
                                                                                            config.PROOF_PRIORITY))
                assert st.bucket(x)["state"] == S.B_PROVING

                cid_y = _camp(st, "ff-warmlabel")
                sha_y, _ = st.report_crash(cid_y, 0, "ff-warmlabel", "buggy", b"B\x01")
                tasks.enqueue_intake(cid_y, "ff-warmlabel", "buggy", sha_y)

                def y_state():
                    c = st.crash("ff-warmlabel", "buggy", sha_y) or {}
                    return (st.bucket(c["bucket"]) or {}).get("state") if c.get("bucket") else None
                faultlib.wait_until(lambda: y_state() in (S.B_PROVING, S.B_DONE, S.B_FAILED), 120,
                                    "the new bucket's triage up to its proof")
                y = st.crash("ff-warmlabel", "buggy", sha_y)["bucket"]
                assert st.bucket(y)["state"] == S.B_PROVING, st.bucket(y)  # its proof waits for the slot too
                bx = st.bucket(x)
                assert bx["state"] == S.B_PROVING and not bx.get("fix_proof"), "a proof ran without a slot"

                st.release_lease(slot, "a long proof")
                faultlib.wait_until(lambda: all((st.bucket(b) or {}).get("state") in (S.B_DONE, S.B_FAILED)
                                                for b in (x, y)), 120, "both proofs")
                for b in (x, y):
                    assert st.bucket(b)["state"] == S.B_DONE and st.bucket(b)["fix_proof"], st.bucket(b)
        finally:
            faultlib.hard_stop(w)
            w.stop()
