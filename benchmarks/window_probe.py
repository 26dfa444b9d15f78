"""Window probe: how often stress and fuzzfarm's walks land one ordering constraint of a given
shape, measured on a synthetic two-goroutine scenario (not a port, not an ``examples`` case).

    python -m benchmarks.window_probe [--wall-s S] [--runs N] [--eps E,...] [--json]

Before porting a candidate hard case, estimate the per-run rate of each of its ordering
constraints under stress (docs/CASES.md#hard-cases): a case stress misses in most 60 s trials
needs a product of rates of about 1e-4 or less. This probe measures one shape the issue
suggested, "a timer fires inside a one-statement window":

* goroutine Y arms timer T for ``1 + eps`` virtual seconds, then sleeps 1 s (its own timer);
* woken, Y runs two non-blocking receives from ``T.C`` back to back (S1, S2: two ``select``
  statements with a ``default``, each a scheduling point);
* the constraint holds when S1 finds ``T.C`` empty and S2 receives the tick: T fired between
  them (the run then fails with an ``AssertionError``, so it is counted the way a case is).

Stress runs the scenario on real threads (``gosim.threaded``, ``sys.setswitchinterval(1e-6)``)
under every setting of ``benchmarks.stress.CANDIDATES`` for ``wall_s`` each and prints the
constraint's rate per run per setting; the walks (``random``, ``pct``, ``mix``) run ``runs``
seeds each under the farm's starvation bound (0.1 s: ``eps`` above it is out of their reach by
design, docs/timing.md). A rate here is hits / runs of this scenario, nothing more.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from fuzzfarm import gosim


def scenario(eps: float):
    """The probe's main: a failure iff T fired between Y's two non-blocking receives."""

    def main():
        seen = []
        done = gosim.Chan(1, name="done")

        def y():
            t = gosim.new_timer(1.0 + eps, name="T")
            gosim.sleep(1.0)
            s1 = gosim.select(gosim.recv_case(t.c), default=True)[0]
            s2 = gosim.select(gosim.recv_case(t.c), default=True)[0]
            seen.append((s1, s2))
            done.send(None)

        gosim.go(y, name="Y")
        done.recv()
        s1, s2 = seen[0]
        if s1 == gosim.DEFAULT and s2 == 0:
            raise AssertionError("T fired between S1 and S2")

    return main


def _hit(report) -> bool:
    return report.failure is not None and "AssertionError" in str(report.failure)


def walks(eps: float, runs: int, names=("random", "pct", "mix")) -> list[dict]:
    """One row per walk strategy: hits over seeds ``0..runs-1`` under the farm's bound."""
    from fuzzfarm.harness import DEFAULT_MAX_STARVATION_S
    from fuzzfarm.strategies import make
    out = []
    for name in names:
        hits, t0 = 0, time.perf_counter()
        for seed in range(runs):
            hits += _hit(gosim.run(scenario(eps), strategy=make(name, seed=seed),
                                   max_starvation_s=DEFAULT_MAX_STARVATION_S))
        dt = time.perf_counter() - t0
        out.append({"eps": eps, "who": name, "runs": runs, "hits": hits, "rate": hits / runs,
                    "runs_per_s": round(runs / dt)})
    return out


def stress(eps: float, wall_s: float, seed: int = 1, settings=None) -> list[dict]:
    """One row per (jitter_s, yield_p, time_scale) setting (default: stress's CANDIDATES)."""
    from benchmarks.stress import CANDIDATES, _wall_timeout
    from fuzzfarm.gosim.threaded import run_threaded
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        out = []
        rng = random.Random(f"window_probe:{seed}")
        for jitter, yield_p, scale in settings or CANDIDATES:
            runs = hits = 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < wall_s:
                hits += _hit(run_threaded(scenario(eps), seed=rng.getrandbits(32), time_scale=scale,
                                          jitter_s=jitter, yield_p=yield_p, wall_timeout_s=_wall_timeout(scale)))
                runs += 1
            out.append({"eps": eps, "who": f"stress jitter={jitter:g} p={yield_p:g} scale={scale:g}",
                        "runs": runs, "hits": hits, "rate": hits / runs,
                        "runs_per_s": round(runs / (time.perf_counter() - t0))})
        return out
    finally:
        sys.setswitchinterval(old)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.window_probe", description=__doc__.splitlines()[0])
    ap.add_argument("--wall-s", type=float, default=3.0, help="stress seconds per setting (default 3)")
    ap.add_argument("--runs", type=int, default=2000, help="walk runs per strategy (default 2000)")
    ap.add_argument("--eps", default="0.02,0.05", help="T's delay after Y's wake-up, virtual s (default 0.02,0.05)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    try:
        epss = [float(e) for e in a.eps.split(",") if e.strip()]
    except ValueError:
        print(f"window_probe: --eps {a.eps!r} is not a list of numbers; give e.g. --eps 0.02,0.05", file=sys.stderr)
        return 2
    rows = []
    for eps in epss:
        rows += walks(eps, a.runs) + stress(eps, a.wall_s)
    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(f"eps={r['eps']:<5g} {r['who']:<40} {r['hits']:>5} / {r['runs']:<6} rate {r['rate']:.2e}"
                  f"  ({r['runs_per_s']} runs/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
