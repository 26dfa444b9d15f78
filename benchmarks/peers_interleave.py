"""Measure interleave-test (the peer) on the toy races: runs, distinct schedules, time to first bug.

Runs in an interpreter where ``interleave_test`` is importable (Python >= 3.12); stdlib and the
peer only (``benchmarks/peer_toys.py`` holds the toy races in the peer's API). Driven by
``benchmarks/peers_measure.py``, which writes ``benchmarks/peers.json``; by hand:

    .venv-peers/bin/python -m benchmarks.peers_interleave [--seconds S] [--bug-seconds S]

prints one JSON object.

How a figure is counted:

* **budget**: a strategy wrapper (``_Budget``) ends the peer's ``explore`` loop once the wall
  budget is spent (``more()`` returns False); the clock starts just before ``explore`` is called,
  so interpreter start-up and ``import interleave_test`` are excluded (as fuzzfarm's walk
  excludes its own start-up from ``--max-time``), the peer's per-``explore`` set-up is included.
* **distinct**: the peer records each run's decision sequence (``Scheduler._decisions``: the
  thread granted at every scheduling point, forced ones included), but exposes it only for a
  failing run (``Failure.schedule.choices``). The wrapper sees the same sequence through the
  peer's strategy hooks (``pick`` for real choices, ``observe`` for forced ones, which the
  scheduler calls in decision order), so distinct = runs whose (scenario, decision sequence) the
  process had not run before (a set of tuple hashes). That is the peer's own notion of a
  schedule, at its own granularity (every traced bytecode or line of the toy file): far finer
  than fuzzfarm's Go preemption points, so two of the peer's distinct schedules may order the
  toy's operations identically. Counting it this way favours the peer.
* **shared_map's n**: fuzzfarm's input picks n = 2, 3 or 4 builders; here each n gets a third of
  the budget (its own ``explore``: DFS needs one fixed model) and the counts are summed.
* **time to first bug**: the buggy form, seconds from the ``explore`` call to the failing run's
  end, and runs, per seed; a failure counts only if it is the toy's bug (TypeError for
  late_cancel, ConcurrentMapWrites for shared_map).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import interleave_test as it

from benchmarks import peer_toys as T

TOY_FILE = os.path.abspath(T.__file__)


class _Budget(it.Strategy):
    """Wraps one of the peer's strategies: stops at the deadline and records decision sequences."""

    def __init__(self, inner, seconds: float, scenario):
        self.inner = inner
        self.deadline = time.monotonic() + seconds
        self.scenario = scenario
        self.seen: set = set()
        self.runs = 0
        self.seq: list = []

    @property
    def exhausted(self):
        return self.inner.exhausted

    def more(self):
        if time.monotonic() >= self.deadline:
            return False
        return self.inner.more()

    def begin(self, iteration, seed):
        self.seq = []
        self.inner.begin(iteration, seed)

    def pick(self, runnable, current, index):
        chosen = self.inner.pick(runnable, current, index)
        self.seq.append(chosen.tid)
        return chosen

    def observe(self, chosen, index):
        obs = getattr(self.inner, "observe", None)
        if obs is not None:
            obs(chosen, index)
        self.seq.append(chosen.tid)

    def end(self):
        self.inner.end()
        self.runs += 1
        self.seen.add(hash((self.scenario, tuple(self.seq))))


STRATEGIES = {  # name -> (peer strategy factory, explore kwargs); pct depths as fuzzfarm's pct:2/3/5
    "random": (lambda: it.RandomStrategy(), {}),
    "pct:2": (lambda: it.PCTStrategy(depth=2), {}),
    "pct:3": (lambda: it.PCTStrategy(depth=3), {}),
    "pct:5": (lambda: it.PCTStrategy(depth=5), {}),
    "dfs:2": (lambda: it.DFSStrategy(max_preemptions=2), {}),
}


def _models(toy: str, fixed: bool):
    """[(scenario, model)]: one for late_cancel, n = 2, 3, 4 for shared_map."""
    if toy == "late_cancel":
        return [("", T.late_cancel(fixed))]
    return [(f"n={n}", T.shared_map(n, fixed)) for n in (2, 3, 4)]


def _explore(model, strat, granularity: str, seed: int):
    return it.explore(model, iterations=10**9, seed=seed, strategy=strat, granularity=granularity,
                      include=[TOY_FILE], raise_on_failure=False)


def distinct(toy: str, strategy: str, granularity: str, seconds: float, seed: int = 1) -> dict:
    """The fixed form for ``seconds``: runs and distinct schedules per second."""
    factory, _ = STRATEGIES[strategy]
    models = _models(toy, fixed=True)
    runs = dist = 0
    elapsed = cpu = 0.0
    exhausted = []
    for scenario, model in models:
        w = _Budget(factory(), seconds / len(models), scenario)
        t0, c0 = time.monotonic(), time.process_time()
        res = _explore(model, w, granularity, seed)
        elapsed += time.monotonic() - t0
        cpu += time.process_time() - c0
        if res.failure is not None:  # the fixed form must not fail: the port would be wrong
            raise SystemExit(f"peers: {toy} fixed failed under {strategy}: {res.failure.format(5)}")
        runs += w.runs
        dist += len(w.seen)
        exhausted.append(bool(res.exhausted))
    return {"toy": toy, "strategy": strategy, "granularity": granularity, "seconds": round(elapsed, 3),
            "runs": runs, "distinct": dist, "runs_per_s": round(runs / elapsed, 1),
            "distinct_per_s": round(dist / elapsed, 1), "cpu_s": round(cpu, 3), "distinct_share": round(dist / max(1, runs), 4),
            "exhausted": all(exhausted)}


def first_bug(toy: str, strategy: str, granularity: str, seed: int, budget_s: float) -> dict:
    """The buggy form: seconds and runs to the toy's bug (shared_map with n = 2, the smallest)."""
    factory, _ = STRATEGIES[strategy]
    scenario, model = _models(toy, fixed=False)[0]
    w = _Budget(factory(), budget_s, scenario)
    t0 = time.monotonic()
    res = _explore(model, w, granularity, seed)
    t = time.monotonic() - t0
    f = res.failure
    ok = f is not None and isinstance(f.exception, T.BUG[toy])
    return {"seed": seed, "found": ok, "seconds": round(t, 4), "runs": res.schedules_run,
            "kind": (type(f.exception).__name__ if f is not None and f.exception is not None else
                     (f.kind if f is not None else None))}


def measure(seconds: float, bug_seconds: float, seeds=(1, 2, 3), granularities=("opcode", "line")) -> dict:
    out = {"peer": "interleave-test", "version": it.__version__, "python": platform.python_version(),
           "distinct": [], "first_bug": []}
    for toy in ("late_cancel", "shared_map"):
        for g in granularities:
            for s in STRATEGIES:
                print(f"peers: {toy} {s} {g}", file=sys.stderr, flush=True)
                out["distinct"].append(distinct(toy, s, g, seconds))
                per = [first_bug(toy, s, g, seed, bug_seconds) for seed in seeds]
                out["first_bug"].append({"toy": toy, "strategy": s, "granularity": g, "per_seed": per})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="interleave-test on the toy races (prints JSON)")
    ap.add_argument("--seconds", type=float, default=5.0, help="budget per toy x strategy x granularity")
    ap.add_argument("--bug-seconds", type=float, default=5.0, help="budget per first-bug run")
    ap.add_argument("--only", nargs=3, metavar=("TOY", "STRATEGY", "GRANULARITY"),
                    help="one distinct-rate measurement only (for peers_measure --compare's interleaved rounds)")
    a = ap.parse_args(argv)
    if a.only:
        print(json.dumps(distinct(*a.only, a.seconds)), flush=True)
        return 0
    print(json.dumps(measure(a.seconds, a.bug_seconds)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
