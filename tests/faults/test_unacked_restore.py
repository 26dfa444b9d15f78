"""No message waits for the visibility timeout (fuzzfarm/farm/unacked.py): a triage step whose
message was stranded in kombu's ``unacked`` hash (its collector's box lost mid-step; Redis
restarted three times within 5 s while it ran) is put back on its queue by a janitor once it has
had no live owner for two lease periods, and the campaign settles with every triage step's effect
recorded once.

The farm here has a visibility timeout of 300 s, so a bucket done within 60 s is the janitor's
doing, not kombu's restore. Leases of 4 s and a janitor round of 1 s keep the test short; the
defaults (20 s, 5 s) put a stranded message back within ~50 s."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys
from fuzzfarm.farm import tasks, unacked
from fuzzfarm.farm.embedded import Farm, Worker

BOUND_S = 60.0
STEPS = ("minimize", "verify", "fix_check", "prove")
ENV = faultlib.worker_env(FUZZFARM_VISIBILITY_TIMEOUT="300", FUZZFARM_LEASE_TTL_S="4",
                          FUZZFARM_JANITOR_INTERVAL_S="1", FUZZFARM_PROVE_BUDGET_S="1")


@pytest.fixture
def farm(tmp_path):
    from farm_fixtures import _need_redis
    _need_redis()
    f = Farm(workdir=str(tmp_path / "farm"), fuzz_concurrency=1, collect_concurrency=1, worker_env=ENV)
    f.start()
    try:
        with faultlib.publishing_to(f.url) as st:
            yield f, st
    finally:
        for w in f.workers:
            faultlib.hard_stop(w)
        f.stop()


def _supervise(f) -> int:
    """Restart every worker of ``f`` that exited (what a supervisor does); how many were restarted."""
    n = 0
    for i, w in enumerate(f.workers):
        if not w.alive():
            f.workers[i] = Worker(w.url, w.queues, concurrency=w.concurrency, env=w.env,
                                  logfile=w.logfile + f".r{i}{n}", name=w.name + f"-r{n}").start()
            n += 1
    return n


def _triage_in_progress(st, n_inputs: int = 3) -> tuple[str, str, list[str]]:
    """A campaign with ``n_inputs`` crash inputs of one bug (ff-crashy ``slow``: every replay
    0.2 s, so minimizing takes seconds) whose intake has started; (campaign, bucket id, input shas)
    once the bucket is minimizing."""
    cid = st.create_campaign({"harness": "ff-crashy", "variant": "slow", "strategy": "bytes", "jobs": 0,
                              "duration_s": 1.0, "harness_hash": faultlib.harness_hash("ff-crashy"),
                              "version": "0"})
    shas = []
    for i in range(n_inputs):
        sha, new = st.report_crash(cid, 0, "ff-crashy", "slow", b"C" + bytes([i]) + bytes(range(100)))
        assert new
        tasks.enqueue_intake(cid, "ff-crashy", "slow", sha)
        shas.append(sha)

    def minimizing():
        ids = st.campaign_bucket_ids(cid)
        return ids and st.bucket(ids[0])["state"] == S.B_MINIMIZING and ids[0]
    bid = faultlib.wait_until(minimizing, 90, "the bucket to be minimizing")
    return cid, bid, shas


def _effects(logs: str) -> dict[str, int]:
    """How many times each triage step ran to its effect (the task returned True)."""
    return {s: len(re.findall(rf"Task fuzzfarm\.{s}\[[^\]]+\] succeeded in [0-9.]+s: True", logs)) for s in STEPS}


def _settle(f, st, cid: str, bid: str, t0: float, what: str) -> tuple[float, int]:
    """Wait (bounded) for the campaign to settle, restarting workers that exit; (seconds, restarts)."""
    restarts = 0
    deadline = t0 + BOUND_S + 30  # the bound is asserted below; past it, stop waiting
    while time.monotonic() < deadline:
        restarts += _supervise(f)
        s = st.campaign_summary(cid)  # (a campaign of 0 jobs never settles: its triage is what counts)
        if s["intaken"] >= s["crashes"] and st.bucket(bid)["state"] in S.BUCKET_FINAL:
            return time.monotonic() - t0, restarts
        time.sleep(0.2)
    left = {t: unacked.describe(st.r.hget("unacked", t)) for t in st.r.hkeys("unacked")}
    raise AssertionError(f"{what}: triage not finished {BOUND_S + 30:g} s later; bucket "
                         f"{st.bucket(bid).get('state')}; unacked: {left}")


def _check_once(f, st, cid: str, bid: str, shas: list[str]) -> dict[str, int]:
    b = st.bucket(bid)
    assert b["state"] == S.B_DONE, b.get("error")
    assert st.bucket_inputs(bid) == set(shas) and int(b["count"]) == len(shas)  # 0 crashes lost, none twice
    logs = "\n".join(w.log_text() for w in f.workers)
    eff = _effects(logs)
    assert eff == {s: 1 for s in STEPS}, eff  # each triage step's effect once
    faultlib.wait_until(lambda: st.r.hlen("unacked") == 0, 30, "no message left in unacked")
    return eff


def test_collector_box_lost_mid_step_its_message_comes_back_without_the_visibility_timeout(farm, tmp_path):
    f, st = farm
    cid, bid, shas = _triage_in_progress(st)
    col = next(w for w in f.workers if w.queues == ["collect"])
    # while it lives, the collector's janitor keeps a claim on the message it runs
    faultlib.wait_until(lambda: any((st.r.zscore(keys.held(), t) or 0) > time.time() for t in st.r.hkeys("unacked")),
                        30, "a live claim on the minimize message")
    t0 = time.monotonic()
    os.killpg(col.proc.pid, signal.SIGKILL)  # the whole box: main process, pool, minimizer
    col.stop(timeout=1)
    assert st.r.hlen("unacked") >= 1  # the minimize message, delivered to a worker that is gone
    # the collector comes back (a supervisor, a new box): a new node, knowing nothing of the message
    f.workers[f.workers.index(col)] = Worker(f.url, ["collect"], env=ENV, logfile=str(tmp_path / "collect2.log"),
                                             name="collect-b").start()
    took, _ = _settle(f, st, cid, bid, t0, "collector box lost")
    logs = "\n".join(w.log_text() for w in f.workers)
    print(f"collector box lost mid-minimize: campaign settled {took:.1f} s after the kill "
          f"(visibility timeout 300 s); restored: {logs.count('unacked: fuzzfarm.')}")
    assert took < BOUND_S
    assert re.search(r"unacked: fuzzfarm\.minimize \[\S+\] had no live worker", logs), logs[-3000:]
    _check_once(f, st, cid, bid, shas)


@pytest.mark.slow  # ~25 s; the default tier keeps the box-loss drill, which strands a message every time
def test_redis_restarted_three_times_during_triage_the_campaign_settles(farm):
    f, st = farm
    cid, bid, shas = _triage_in_progress(st)
    t_burst = time.monotonic()
    for _ in range(3):  # three restarts within 5 s (AOF on: nothing written is lost)
        f.redis.stop()
        f.redis.start()
        time.sleep(0.5)
    burst_s = time.monotonic() - t_burst
    t0 = time.monotonic()
    took, restarts = _settle(f, st, cid, bid, t0, "Redis restarted x3")
    logs = "\n".join(w.log_text() for w in f.workers)
    eff = _check_once(f, st, cid, bid, shas)
    print(f"redis x3 in {burst_s:.1f} s during triage: campaign settled {took:.1f} s after the last restart "
          f"(visibility timeout 300 s); worker restarts {restarts}; restored from unacked: "
          f"{logs.count('unacked: fuzzfarm.')}; step effects {eff}")
    assert took < BOUND_S


def test_a_copy_of_a_running_steps_message_does_not_run_it_beside_the_first(farm, tmp_path):
    """A restored copy of a triage message (same task id) delivered to another collector while the
    first delivery still minimizes: the copy waits for the first's claim (renewed while it runs),
    then finds the step done; minimize's effect is recorded once."""
    import json

    f, st = farm
    cid, bid, shas = _triage_in_progress(st)
    (raw,) = [r for r in st.r.hvals("unacked") if "fuzzfarm.minimize" in r]
    tid = json.loads(raw)[0]["headers"]["id"]
    f.workers.append(Worker(f.url, ["collect"], env=ENV, logfile=str(tmp_path / "collect2.log"),
                            name="collect-b").start())
    f.workers[-1].wait_ready()
    if st.bucket(bid)["state"] != S.B_MINIMIZING:
        pytest.skip("the first minimize ended before the copy could be sent (machine too fast)")
    tasks.minimize.apply_async(args=[bid], task_id=tid, priority=0)  # the copy, as a restore makes it
    took, _ = _settle(f, st, cid, bid, time.monotonic(), "a copy of a running step")
    logs = "\n".join(w.log_text() for w in f.workers)
    copy = re.findall(rf"Task fuzzfarm\.minimize\[{tid}\] succeeded in [0-9.]+s: (\w+)", f.workers[-1].log_text())
    print(f"copy of a running minimize: the copy returned {copy}; effects {_effects(logs)}")
    assert copy == ["False"], copy
    _check_once(f, st, cid, bid, shas)
