"""Hand-run fault drills on a private farm (its own redis-server with AOF and real Celery
workers, all stopped at the end). Run through ``scripts/drill_kill_worker`` and
``scripts/drill_redis_restart``; each prints its figures and exits 1 when a promise was broken.

    kill  --kills 20 [--mode pool|worker|mixed] [--jobs 2] [--seed 1]
        pool:   SIGKILL the Celery pool process running a fuzz job (an OOM kill, a native crash);
                Celery requeues the job at once.
        worker: SIGKILL a whole fuzz worker (main process, pool, fuzzers: a preempted machine);
                a replacement worker is started, as systemd/k8s would, and the job comes back
                after the visibility timeout (shortened for the drill to ~30 s).
    redis --restarts 5 [--outage 3] [--gap 6]
        stop redis-server (SIGTERM) mid-campaign, keep it down OUTAGE seconds, start it again on
        the same port and AOF; repeat. Checks buckets, artifacts, corpus and crash inputs
        survive every restart and that the campaign finishes with nothing lost or doubled. Workers
        are supervised as deploy/ does (a worker process that exits is started again).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import faultlib  # noqa: E402  (imports no fuzzfarm module)

# Shorter limits so that a job of a dead worker comes back within ~35 s (the visibility timeout
# must exceed every task's hard limit: 4 s slices + 16 s margin, collector tasks 30 s). Set
# before fuzzfarm.farm.config is imported, here and in every worker.
DRILL_ENV = {k: faultlib.WORKER_ENV[k] for k in ("FUZZFARM_MAX_SLICE_S", "FUZZFARM_FUZZ_MARGIN_S",
                                                  "FUZZFARM_COLLECT_TIME_LIMIT_S", "FUZZFARM_VISIBILITY_TIMEOUT")}
os.environ.update(DRILL_ENV)

import killdrill  # noqa: E402
from fuzzfarm.farm import store as S  # noqa: E402
from fuzzfarm.farm.embedded import Farm, Worker  # noqa: E402


def _farm(workdir: str, fuzz_workers: int = 1) -> Farm:
    env = faultlib.worker_env(**DRILL_ENV)
    f = Farm(workdir=workdir, fuzz_concurrency=2, collect_concurrency=1, worker_env=env)
    f.start()
    try:
        for i in range(fuzz_workers - 1):
            w = Worker(f.url, ["fuzz"], concurrency=2, env=env,
                       logfile=os.path.join(workdir, f"worker-fuzz-{i + 2}.log")).start()
            f.workers.append(w)
            w.wait_ready()
    except BaseException:
        f.stop()
        raise
    return f


def kill_drill(args) -> int:
    workdir = tempfile.mkdtemp(prefix="fuzzfarm-drill-")
    # whole-worker kills need a second fuzz worker to restore the dead one's messages
    farm = _farm(workdir, fuzz_workers=2 if args.mode != "pool" else 1)
    rng = random.Random(args.seed)
    replaced = []

    def whole_worker(pool: int) -> str | None:
        """SIGKILL the worker owning ``pool``; start a replacement (a supervisor's restart)."""
        if args.mode == "pool" or (args.mode == "mixed" and rng.random() < 0.5):
            return None
        main = faultlib.ppid_of(pool)
        w = next((w for w in farm.workers if w.proc and w.proc.pid == main), None)
        if w is None:
            return None
        children = faultlib.worker_pool_children(main)
        faultlib.kill(main)
        w.proc.wait(10)
        try:
            faultlib.wait_until(lambda: not any(faultlib.alive(c) for c in children), 10,
                                "the dead worker's pool processes to die")
        except AssertionError:
            print("  !! pool processes outlived their worker:", [c for c in children if faultlib.alive(c)])
        farm.workers.remove(w)
        new = Worker(farm.url, ["fuzz"], concurrency=2, env=farm.worker_env,
                     logfile=os.path.join(workdir, f"worker-fuzz-replacement-{len(replaced)}.log")).start()
        new.wait_ready()
        farm.workers.append(new)
        replaced.append(new.name)
        return w.name

    try:
        with faultlib.publishing_to(farm.url) as st:
            st.r.flushdb()
            # each whole-worker kill costs about a visibility timeout: give the campaign time
            duration = None if args.mode == "pool" else 4.0 * args.kills + 10.0
            res = killdrill.run(st, kills=args.kills, jobs=args.jobs, seed=args.seed, duration=duration,
                                settle_timeout=600 + 60 * args.kills, kill=whole_worker)
    finally:
        farm.stop()
        left = faultlib.fuzzers()
        farm.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nworker-kill drill ({args.mode}, {len(replaced)} whole workers replaced):")
    print("  " + res.figures())
    for n in res.notes:
        print("  note:", n)
    if left:
        print("  !! fuzzers left after the farm stopped:", left)
    ok = (res.kills_survived == res.kills_tried == args.kills and res.crashes_lost == 0 and res.duplicates == 0
          and res.fuzzers_outliving == 0 and res.jobs_failed == 0 and not left)
    print("  result:", "OK" if ok else "BROKEN PROMISE")
    return 0 if ok else 1


def _supervise(farm: Farm, workdir: str, restarted: list) -> None:
    """What systemd's Restart=always / a k8s Deployment do: start a worker again when it died."""
    for i, w in enumerate(list(farm.workers)):
        if not w.alive():
            new = Worker(farm.url, w.queues, concurrency=w.concurrency, env=farm.worker_env,
                         logfile=os.path.join(workdir, f"worker-{'+'.join(w.queues)}-restart-{len(restarted)}.log"))
            new.start()
            farm.workers[i] = new
            restarted.append(f"{w.name} (exit code {w.proc.returncode})")
            print(f"  supervisor: worker {w.name} exited (code {w.proc.returncode}); started {new.name}")
            w.stop(timeout=1)


def redis_drill(args) -> int:
    workdir = tempfile.mkdtemp(prefix="fuzzfarm-drill-")
    farm = _farm(workdir)
    survived = 0
    problems = []
    restarted: list = []
    t0 = time.monotonic()
    try:
        with faultlib.publishing_to(farm.url) as st:
            st.r.flushdb()
            cid = faultlib.submit(st, "ff-crashy", jobs=2, duration=15.0 + (args.gap + args.outage + 2) * args.restarts)
            faultlib.wait_until(lambda: st.campaign_bucket_ids(cid), 120, "a first bucket")
            for i in range(args.restarts):
                time.sleep(args.gap)
                _supervise(farm, workdir, restarted)
                if st.campaign_summary(cid)["status"] != "running":
                    problems.append(f"campaign ended before restart {i + 1}; raise the duration")
                    break
                bids = st.campaign_bucket_ids(cid)
                before = {"artifacts": {b: st.artifact(b) for b in bids}, "buckets": {b: st.bucket(b)["signature"]
                                                                                       for b in bids},
                          "corpus": set(st.r.hkeys(S.P + "corpus:ff-crashy")),
                          "crashes": set(st.r.smembers(S.P + f"campaign:{cid}:crashes"))}
                farm.redis.stop()
                time.sleep(args.outage)
                farm.redis.start()
                after_bids = st.campaign_bucket_ids(cid)
                lost = []
                if {b: st.bucket(b)["signature"] for b in bids} != before["buckets"]:
                    lost.append("buckets")
                if {b: st.artifact(b) for b in bids} != before["artifacts"]:
                    lost.append("artifacts")
                if not before["corpus"] <= set(st.r.hkeys(S.P + "corpus:ff-crashy")):
                    lost.append("corpus")
                if not before["crashes"] <= set(st.r.smembers(S.P + f"campaign:{cid}:crashes")):
                    lost.append("crash inputs")
                if lost or not set(bids) <= set(after_bids):
                    problems.append(f"restart {i + 1}: lost {', '.join(lost) or 'bucket ids'}")
                else:
                    survived += 1
                print(f"restart {i + 1}/{args.restarts}: {args.outage:g} s outage; kept {len(bids)} bucket(s), "
                      f"{len(before['corpus'])} corpus inputs, {len(before['crashes'])} crash inputs")
            faultlib.wait_until(lambda: _supervise(farm, workdir, restarted) or faultlib.campaign_settled(st, cid),
                                600, "the campaign to finish")
            s = st.campaign_summary(cid)
            states = faultlib.job_states(st, cid)
            dups = sum(abs(int(st.bucket(b)["count"]) - len(st.bucket_inputs(b))) for b in st.campaign_bucket_ids(cid))
            lost_crashes = s["crashes"] - s["intaken"]
            alive = not restarted
    finally:
        farm.stop()
        farm.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nRedis-restart drill: restarts survived / tried: {survived} / {args.restarts}; jobs {states}; "
          f"crashes {s['crashes']} (lost {lost_crashes}); duplicates {dups}; buckets {s['buckets']}; "
          f"worker processes that died and were restarted by the supervisor: {len(restarted)}; "
          f"{time.monotonic() - t0:.0f} s")
    for p in problems:
        print("  !!", p)
    # a worker dying in an outage is Celery/kombu's (see docs/RELIABILITY.md); with a supervisor
    # restarting it the campaign must still finish with nothing lost
    ok = (survived == args.restarts and not problems and lost_crashes == 0 and dups == 0
          and states == [S.JOB_DONE] * 2)
    if not alive:
        print("  note: worker processes exited during outages (a Celery/kombu reconnect bug); the supervisor's "
              "restart and the visibility timeout recovered their jobs")
    print("  result:", "OK" if ok else "BROKEN PROMISE")
    return 0 if ok else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="drill", required=True)
    k = sub.add_parser("kill")
    k.add_argument("--kills", type=int, default=20)
    k.add_argument("--mode", choices=("pool", "worker", "mixed"), default="pool")
    k.add_argument("--jobs", type=int, default=2)
    k.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("redis")
    r.add_argument("--restarts", type=int, default=5)
    r.add_argument("--outage", type=float, default=3.0)
    r.add_argument("--gap", type=float, default=6.0, help="seconds between a restart and the next outage")
    args = ap.parse_args(argv)
    faultlib.assert_no_fuzzers_left(timeout=1)  # a clean machine to count on
    return kill_drill(args) if args.drill == "kill" else redis_drill(args)


if __name__ == "__main__":
    raise SystemExit(main())
