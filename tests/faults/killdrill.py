"""The worker-kill drill, shared by ``tests/faults/test_kill_worker.py`` (5 kills) and
``scripts/drill_kill_worker`` (20+ kills, figures printed).

A campaign of the test harness ``ff-crashy`` (a steady stream of distinct crash inputs, one bug)
runs on a real farm; the drill repeatedly SIGKILLs the Celery pool process that runs a fuzz job
(what the OOM killer or a native crash does), right in the middle of a slice, and records which
crashes had been reported before each kill. At the end it checks what the farm promises:

* the campaign finishes: every job ``done`` (none ``failed``), every crash input triaged;
* crashes lost = crashes reported before some kill that are no longer in the campaign, or never
  made it into a bucket;
* duplicates = bucket counts that differ from the number of distinct inputs in the bucket, or a
  crash input counted in more than one bucket;
* no fuzzer outlives the pool process that ran it (docs/TRAPS.md#g14).
"""

from __future__ import annotations

import dataclasses
import random
import time

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, lease


@dataclasses.dataclass
class DrillResult:
    campaign: str
    kills_tried: int = 0
    kills_survived: int = 0          # kills after which the killed slice ran again and the job finished
    crashes_before_kills: int = 0    # distinct crash inputs reported before some kill
    crashes_total: int = 0
    crashes_lost: int = 0
    duplicates: int = 0
    fuzzers_outliving: int = 0
    jobs_done: int = 0
    jobs_failed: int = 0
    buckets: int = 0
    wall_s: float = 0.0
    notes: list = dataclasses.field(default_factory=list)

    def figures(self) -> str:
        return (f"kills survived / tried: {self.kills_survived} / {self.kills_tried}; crashes lost: "
                f"{self.crashes_lost} (of {self.crashes_total}, {self.crashes_before_kills} reported before a kill); "
                f"duplicates: {self.duplicates}; fuzzers outliving their worker process: {self.fuzzers_outliving}; "
                f"jobs done/failed: {self.jobs_done}/{self.jobs_failed}; buckets: {self.buckets}; "
                f"{self.wall_s:.0f} s")


def run(st, *, kills: int, jobs: int = 2, duration: float | None = None, seed: int = 1,
        settle_timeout: float = 300.0, log=print, kill=None) -> DrillResult:
    """Kill the pool process of a running fuzz job ``kills`` times during one campaign.

    ``kill(pool_pid)``, when given, may kill differently (a whole worker): it returns the killed
    worker's name, or None to have the pool process killed here."""
    rng = random.Random(seed)
    # enough fuzzing time for every kill to land mid-slice: each kill costs the partial slice
    duration = duration or max(10.0, 4.0 * kills / jobs + 6.0)
    t0 = time.monotonic()
    cid = faultlib.submit(st, "ff-crashy", jobs=jobs, duration=duration)
    res = DrillResult(cid)
    reported_before: set[str] = set()
    per_message: dict[str, int] = {}  # kills per task message (its id: what the poison-pill limit counts)

    def message_of(n: int, k: int, pid: int | None = None) -> str | None:
        """The task id of the delivery that holds slice ``k`` of job ``n`` (in process ``pid``):
        the job record's slice number moves on before the pool process has finished the slice
        message it ran, so the slice number alone can name the wrong message."""
        holder = (st.lease_holder(lease.claim_name(cid, n, k)) or "").split(" ")
        if len(holder) != 3 or (pid is not None and holder[2] != str(pid)):
            return None
        return holder[0]

    victims = []
    while res.kills_tried < kills:
        s = st.campaign_summary(cid)
        if s["status"] in ("done", "failed"):
            res.notes.append(f"campaign ended after {res.kills_tried} kills; raise the duration")
            break
        running = [j for j in st.jobs(cid) if j.get("state") == S.JOB_RUNNING]
        # never kill one task message more than MAX_DELIVERIES - 1 times: that is a poison pill
        cands = [j for j in running
                 if per_message.get(message_of(int(j["job"]), int(j.get("slice", 0) or 0)) or "", 0)
                 < config.MAX_DELIVERIES - 1]
        if not cands:
            time.sleep(0.2)
            continue
        j = rng.choice(cands)
        n, k = int(j["job"]), int(j.get("slice", 0) or 0)
        try:
            pool, fuzzer = faultlib.pool_process_of_job(cid, n, timeout=10)
        except AssertionError:
            continue
        time.sleep(rng.uniform(0.3, 1.5))  # mid-slice, with crashes in flight
        now = st.job(cid, n)
        k_now = int(now.get("slice", 0) or 0)
        msg = message_of(n, k_now, pool)
        if now.get("state") != S.JOB_RUNNING or not faultlib.alive(pool) or msg is None or \
                per_message.get(msg, 0) >= config.MAX_DELIVERIES - 1:
            continue  # the slice ended meanwhile (or that process is between slices); pick again
        # the fuzzer run now (libFuzzer restarts after every crash, so it may be a newer one)
        fuzzer = next((f for f in faultlib.fuzzers(cid, n) if faultlib.ppid_of(f) == pool), fuzzer)
        reported_before |= set(st.r.smembers(S.P + f"campaign:{cid}:crashes"))
        others = []  # (worker, message) of the other running slices: a whole-worker kill hits its own
        for o in st.jobs(cid):
            if o.get("state") == S.JOB_RUNNING and int(o["job"]) != n:
                m = message_of(int(o["job"]), int(o.get("slice", 0) or 0))
                if m:
                    others.append((str(o.get("worker", "")).split("@")[0], m))
        whole = kill(pool) if kill else None
        if not whole and not faultlib.kill(pool):
            continue
        res.kills_tried += 1
        per_message[msg] = per_message.get(msg, 0) + 1
        if whole:  # every job that worker ran died with it
            for w, m in others:
                if w == whole:
                    per_message[m] = per_message.get(m, 0) + 1
        victims.append((n, k_now, pool, fuzzer))
        log(f"kill {res.kills_tried}/{kills}: job {n} slice {k_now}: "
            + (f"whole worker {whole}" if whole else f"pool process {pool}") + f" (fuzzer {fuzzer})")
        # docs/TRAPS.md#g14: the fuzzer dies with the process that ran it
        try:
            faultlib.wait_until(lambda f=fuzzer: not faultlib.alive(f), 10, f"fuzzer {fuzzer} to die")
        except AssertionError:
            res.fuzzers_outliving += 1
    res.crashes_before_kills = len(reported_before)

    faultlib.wait_until(lambda: faultlib.campaign_settled(st, cid), settle_timeout,
                        f"campaign {cid} to finish and be triaged after {res.kills_tried} kills")
    res.wall_s = time.monotonic() - t0
    states = faultlib.job_states(st, cid)
    res.jobs_done, res.jobs_failed = states.count(S.JOB_DONE), states.count(S.JOB_FAILED)
    # a kill was survived when the job it hit finished
    res.kills_survived = sum(1 for n, *_ in victims if states[n] == S.JOB_DONE)
    for j in st.jobs(cid):  # why a job failed, for the assertion's message
        if j.get("state") == S.JOB_FAILED:
            res.notes.append(f"job {j['job']} failed: {j.get('error', '')}")

    crashes = set(st.r.smembers(S.P + f"campaign:{cid}:crashes"))
    intaken = set(st.r.smembers(S.P + f"campaign:{cid}:intaken"))
    res.crashes_total = len(crashes)
    in_bucket: dict[str, list[str]] = {}
    bids = st.campaign_bucket_ids(cid)
    res.buckets = len(bids)
    for bid in bids:
        b = st.bucket(bid)
        inputs = st.bucket_inputs(bid)
        if int(b["count"]) != len(inputs):
            res.duplicates += abs(int(b["count"]) - len(inputs))
        for sha in inputs:
            in_bucket.setdefault(sha, []).append(bid)
    res.duplicates += sum(len(v) - 1 for v in in_bucket.values())
    unbucketed = {sha for sha in crashes
                  if sha not in in_bucket and (st.crash("ff-crashy", "buggy", sha) or {}).get("status")
                  != "unreproducible"}
    res.crashes_lost = len(reported_before - crashes) + len((crashes - intaken) | unbucketed)
    if unbucketed:
        res.notes.append(f"crash inputs without a bucket: {sorted(unbucketed)[:5]}")
    return res
